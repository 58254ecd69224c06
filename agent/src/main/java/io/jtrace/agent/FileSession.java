package io.jtrace.agent;

import io.jtrace.protos.TraceConfig;
import io.jtrace.service.Consumer;
import io.jtrace.service.ConsumerEndpoint;
import io.jtrace.service.TracingService;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session started by the agent's own options. The service streams it into the trace file
 * (write_into_file), so a long trace needs no more memory than its buffer; the file is complete when
 * the session ends: its duration elapsed, or the JVM exits.
 */
final class FileSession implements Consumer {
    private static final Logger LOG = LoggerFactory.getLogger(FileSession.class);
    /** How often the service drains the buffer into the file. */
    static final int FILE_WRITE_PERIOD_MS = 2000;
    /**
     * How often the service asks producers to flush, so a slow thread's half-filled chunk reaches the
     * file within this period instead of at the end. A streaming session without one is what
     * trace_processor reports as the error {@code config_write_into_file_no_flush}.
     */
    static final int FLUSH_PERIOD_MS = 10_000;

    private final Path file;
    private final ConsumerEndpoint endpoint;
    private final CompletableFuture<Void> written = new CompletableFuture<>();

    private FileSession(TracingService service, Path file) {
        this.file = file;
        this.endpoint = service.connectConsumer(this);
    }

    /**
     * Starts the session and returns once its data sources have started, so the application's first
     * events (right after premain) are traced.
     */
    static FileSession start(TracingService service, TraceConfig config, Path file)
            throws InterruptedException, ExecutionException, TimeoutException {
        FileSession session = new FileSession(service, file);
        TraceConfig streamed = config.toBuilder()
                .setWriteIntoFile(true)
                .setOutputPath(file.toAbsolutePath().toString())
                .setFileWritePeriodMs(FILE_WRITE_PERIOD_MS)
                .setFlushPeriodMs(config.getFlushPeriodMs() > 0 ? config.getFlushPeriodMs() : FLUSH_PERIOD_MS)
                .build();
        session.endpoint.enableTracing(streamed).get(10, TimeUnit.SECONDS);
        return session;
    }

    Path file() {
        return file;
    }

    /** Completes once the file is complete. */
    CompletableFuture<Void> written() {
        return written;
    }

    @Override
    public void onTracingDisabled(String error) {
        endpoint.freeBuffers();
        if (error != null) {
            LOG.error("jtrace: trace {} is incomplete: {}", file, error);
            written.completeExceptionally(new IllegalStateException(error));
        } else {
            LOG.info("jtrace: trace written to {}", file);
            written.complete(null);
        }
    }

    /** Stops the session (if still running) and waits until the file is complete. */
    void stopAndWrite(long timeoutMillis) {
        endpoint.disableTracing();
        try {
            written.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.error("jtrace: trace file {} not finished within {} ms", file, timeoutMillis);
        } catch (ExecutionException e) {
            LOG.error("jtrace: writing trace file {} failed", file, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
