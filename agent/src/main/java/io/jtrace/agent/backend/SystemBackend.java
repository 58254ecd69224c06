package io.jtrace.agent.backend;

import io.jtrace.producer.DataSource;
import io.jtrace.producer.ProducerClient;
import io.jtrace.producer.remote.IpcProducerEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This JVM as a producer of a {@code jtrace daemon}, beside the embedded service (as Perfetto's SDK
 * runs its in-process and system backends side by side): the same data source objects serve both, each
 * session through its own instance and its own producer's shared memory.
 *
 * <p>The daemon may start after this JVM, stop, or restart: every {@link #CHECK_PERIOD_MS} the link's
 * thread looks for the producer socket and connects when it is there and no connection is up. A lost
 * connection stops that producer's data sources (their sessions were the daemon's) and the next check
 * connects anew, with a new producer and a new SMB. All state changes happen on the link's one thread.
 */
public final class SystemBackend implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SystemBackend.class);
    static final long CHECK_PERIOD_MS = 2000;
    private static final long CONNECT_TIMEOUT_MS = 5000;

    private final Path socket;
    private final String producerName;
    private final List<DataSource> sources;
    private final ScheduledExecutorService thread;
    /** Link thread only. */
    private ProducerClient producer;
    /** Link thread only: the socket we last failed on, so a stale file is logged once, not every check. */
    private boolean lastAttemptFailed;

    private SystemBackend(Path socket, String producerName, List<DataSource> sources) {
        this.socket = socket;
        this.producerName = producerName;
        this.sources = sources;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jtrace-daemon-link");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts looking for the daemon at {@code socket}, now and every {@link #CHECK_PERIOD_MS}. */
    public static SystemBackend start(Path socket, String producerName, List<DataSource> sources) {
        SystemBackend backend = new SystemBackend(socket, producerName, sources);
        backend.thread.scheduleWithFixedDelay(backend::check, 0, CHECK_PERIOD_MS, TimeUnit.MILLISECONDS);
        return backend;
    }

    private void check() {
        if (producer != null || !Files.exists(socket)) {
            return;
        }
        ProducerClient candidate = new ProducerClient(producerName, sources);
        try {
            candidate.connect(p -> {
                try {
                    return IpcProducerEndpoint.connect(socket, p, producerName, CONNECT_TIMEOUT_MS,
                            () -> thread.execute(() -> lost(candidate)));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            producer = candidate;
            lastAttemptFailed = false;
            LOG.info("jtrace: joined the jtrace daemon at {}", socket);
        } catch (RuntimeException e) {
            candidate.close();
            if (!lastAttemptFailed) {
                LOG.info("jtrace: cannot join the jtrace daemon at {}: {}", socket, messageOf(e));
            }
            lastAttemptFailed = true;
        }
    }

    private void lost(ProducerClient lostProducer) {
        if (producer == lostProducer) {
            producer = null;
            LOG.info("jtrace: lost the jtrace daemon at {}; its sessions' data sources stopped", socket);
        }
        lostProducer.close();
    }

    @Override
    public void close() {
        thread.execute(() -> {
            if (producer != null) {
                producer.close();
                producer = null;
            }
        });
        thread.shutdown();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String messageOf(Throwable e) {
        Throwable cause = e instanceof UncheckedIOException && e.getCause() != null ? e.getCause() : e;
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }
}
