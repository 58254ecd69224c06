package io.jtrace.agent;

import io.jtrace.protos.TraceConfig;
import io.jtrace.service.Consumer;
import io.jtrace.service.ConsumerEndpoint;
import io.jtrace.service.TracingService;
import io.jtrace.service.output.TraceFileWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session started by the agent's own options: a consumer that, when the session ends (its duration
 * elapses, or the JVM exits), reads every packet into the trace file.
 */
final class FileSession implements Consumer {
    private static final Logger LOG = LoggerFactory.getLogger(FileSession.class);
    private static final long STARTUP_FLUSH_TIMEOUT_MILLIS = 5000;

    private final Path file;
    private final ConsumerEndpoint endpoint;
    private final AtomicBoolean writing = new AtomicBoolean();
    private final CompletableFuture<Long> written = new CompletableFuture<>();

    private FileSession(TracingService service, Path file) {
        this.file = file;
        this.endpoint = service.connectConsumer(this);
    }

    static FileSession start(TracingService service, TraceConfig config, Path file)
            throws InterruptedException, ExecutionException, TimeoutException {
        FileSession session = new FileSession(service, file);
        session.endpoint.enableTracing(config).get(10, TimeUnit.SECONDS);
        // Data sources start on the producer's thread, after enableTracing returns. A flush is answered
        // only after the producer has handled every earlier call, so its ack means they have started and
        // the application's first events (right after premain) are traced.
        session.endpoint.flush(STARTUP_FLUSH_TIMEOUT_MILLIS).get(10, TimeUnit.SECONDS);
        return session;
    }

    Path file() {
        return file;
    }

    /** Completes with the packet count once the file is written. */
    CompletableFuture<Long> written() {
        return written;
    }

    @Override
    public void onTracingDisabled(String error) {
        if (error != null) {
            LOG.warn("jtrace session ended with an error: {}", error);
        }
        writeFile();
    }

    /** Stops the session (if still running) and waits until the file is written. */
    void stopAndWrite(long timeoutMillis) {
        endpoint.disableTracing();
        try {
            written.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.error("jtrace: trace file {} not written within {} ms", file, timeoutMillis);
        } catch (ExecutionException e) {
            LOG.error("jtrace: writing trace file {} failed", file, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void writeFile() {
        if (!writing.compareAndSet(false, true)) {
            return;
        }
        TraceFileWriter out;
        try {
            out = new TraceFileWriter(file);
        } catch (IOException e) {
            written.completeExceptionally(e);
            endpoint.freeBuffers();
            return;
        }
        endpoint.readBuffers(out).whenComplete((packets, error) -> {
            try {
                out.close();
            } catch (IOException e) {
                error = error != null ? error : e;
            }
            endpoint.freeBuffers();
            if (error != null) {
                written.completeExceptionally(error);
            } else {
                LOG.info("jtrace: wrote {} packets ({} bytes) to {}", packets, out.bytes(), file);
                written.complete(packets);
            }
        });
    }
}
