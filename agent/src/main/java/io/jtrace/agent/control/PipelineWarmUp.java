package io.jtrace.agent.control;

import io.jtrace.agent.trackevent.CategoryFilter;
import io.jtrace.agent.trackevent.TrackEventDataSource;
import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TrackEventConfig;
import io.jtrace.service.TracingService;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the whole track-event pipeline once, before the JVM's first session: a private session streams
 * a few tens of thousands of slices into a scratch file beside the real one, then ends and the file is
 * deleted. The application's events then meet compiled code from their first one.
 *
 * <p>Why: a session started with the JVM (or on a busy JVM) otherwise runs the writer's path and the
 * service's path interpreted while the application's threads take the CPU, and the compiler threads get
 * their share too late. With 200 threads paced at 3,000 slices/s each from the start, the service thread
 * got 3 % of the CPU, ran its commits interpreted, and the SMB filled in 1.3 s: a third or more of the
 * events were lost (counted) in most runs (benchmarks/README.md). JFR has no such phase: its buffer
 * promotion and its recorder are native code.
 *
 * <p>Never visible: the session is not in the registry (no name, no status line, no listener); its
 * category is disabled by default ({@link CategoryFilter#DISABLED_BY_DEFAULT_PREFIX}), so no other
 * session records it, whoever started that one (this registry, the consumer socket, a daemon) and
 * whatever its categories, unless it names the category exactly; a concurrent start here waits for it to
 * end; a failure only skips the warm-up (logged at debug level).
 */
final class PipelineWarmUp {
    static final String CATEGORY = CategoryFilter.DISABLED_BY_DEFAULT_PREFIX + "jtrace.warmup";
    /** Slices per shape of call: enough for the JIT's second tier on the per-packet methods. */
    static final int SLICES = 12_000;
    private static final long TIMEOUT_MS = 10_000;
    private static final Logger LOG = LoggerFactory.getLogger(PipelineWarmUp.class);

    private final TracingService service;
    /** Guarded by this: a second start waits for the warm-up to end. */
    private boolean done;

    PipelineWarmUp(TracingService service) {
        this.service = service;
    }

    /**
     * The first call runs the warm-up, writing its scratch file in {@code traceFile}'s directory (so it
     * writes to the same file system, the same way, as the trace will); every later call returns at once.
     */
    synchronized void runOnce(Path traceFile) {
        if (done) {
            return;
        }
        done = true;
        long started = System.nanoTime();
        Path scratch = null;
        try {
            scratch = scratchFile(traceFile);
            scratch.toFile().deleteOnExit();
            AgentSession session = AgentSession.start(service, "jtrace-warmup-" + ProcessHandle.current().pid(),
                    SessionRequest.Mode.FILE, scratch, config());
            session.markInternal();
            try {
                emit(Category.of(CATEGORY));
            } finally {
                session.requestStop();
                session.ended().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
            deleteQuietly(scratch);
            LOG.debug("jtrace: pipeline warmed up in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception | LinkageError e) {
            // A scratch file still being written (the session did not end in time) is left to the exit.
            LOG.debug("jtrace: pipeline warm-up skipped", e);
        }
    }

    /**
     * The two shapes the API's slices take, one after the other: plain begin/end, then an event with an
     * argument. Not interleaved: the JIT compiles from branch profiles, and alternating names would have
     * every plain begin miss its sequence's last interned name, so the compiled fast path would be the
     * one the warm-up never took (an application thread that floods one slice measured 6 % slower).
     */
    private static void emit(Category category) {
        for (int i = 0; i < SLICES; i++) {
            TrackEvent.begin(category, "warm-up");
            TrackEvent.end(category);
        }
        for (int i = 0; i < SLICES; i++) {
            TrackEvent.event(category).arg("i", i).begin("warm-up with argument");
            TrackEvent.end(category);
        }
    }

    private static TraceConfig config() {
        return TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(1024)
                        .setFillPolicy(TraceConfig.BufferConfig.FillPolicy.RING_BUFFER))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder()
                        .setName(TrackEventDataSource.NAME)
                        .setTrackEventConfig(TrackEventConfig.newBuilder().addEnabledCategories(CATEGORY))))
                .build();
    }

    private static Path scratchFile(Path traceFile) throws IOException {
        Path dir = traceFile.toAbsolutePath().getParent();
        try {
            return Files.createTempFile(dir, ".jtrace-warmup-", ".pftrace");
        } catch (IOException | RuntimeException e) {
            return Files.createTempFile(".jtrace-warmup-", ".pftrace");
        }
    }

    private static void deleteQuietly(Path file) {
        if (file == null) {
            return;
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.debug("jtrace: could not delete the warm-up's scratch file {}", file, e);
        }
    }
}
