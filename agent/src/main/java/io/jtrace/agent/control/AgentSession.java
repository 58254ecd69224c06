package io.jtrace.agent.control;

import io.jtrace.service.output.FileErrors;
import io.jtrace.jmx.SessionInfo;
import io.jtrace.protos.TraceConfig;
import io.jtrace.service.Consumer;
import io.jtrace.service.ConsumerEndpoint;
import io.jtrace.service.TracingService;
import io.jtrace.service.output.WholeTraceFile;
import io.jtrace.service.status.SessionStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * One session the agent runs for any control surface, and the consumer that ends it: a
 * {@link SessionRequest.Mode#FILE} session is streamed into its file by the service
 * (write_into_file), so a long trace needs no more memory than its buffer; a
 * {@link SessionRequest.Mode#RING} session stays in its ring buffer (the last {@code buffer} bytes of
 * tracing, a flight recorder) and is read into its file when it ends.
 */
final class AgentSession implements Consumer {
    private static final Logger LOG = LoggerFactory.getLogger(AgentSession.class);
    /** How often the service drains a FILE session's buffer into the file. */
    static final int FILE_WRITE_PERIOD_MS = 2000;
    /**
     * How often the service asks producers to flush, so a slow thread's half-filled chunk reaches the
     * file within this period instead of at the end. A streaming session without one is what
     * trace_processor reports as the error {@code config_write_into_file_no_flush}.
     */
    static final int FLUSH_PERIOD_MS = 10_000;
    static final long FLUSH_TIMEOUT_MS = 5000;

    final String name;
    final SessionRequest.Mode mode;
    final Path file;
    final TraceConfig config;
    private final TracingService service;
    private final ConsumerEndpoint endpoint;
    /** Set for a session of the agent's own (the warm-up): its end is logged at debug level only. */
    private volatile boolean internal;
    private volatile long id;
    /** The service's last view of the session, taken as it ended (its buffers' final counters). */
    private volatile SessionStatus finalStatus;
    /** Completes with the error ("" for none) once the file is complete. */
    private final CompletableFuture<String> ended = new CompletableFuture<>();
    /** Completed by the registry once it has recorded the session's end: what a stop returns. */
    final CompletableFuture<SessionInfo> endInfo = new CompletableFuture<>();

    private AgentSession(TracingService service, String name, SessionRequest.Mode mode, Path file, TraceConfig config) {
        this.name = name;
        this.mode = mode;
        this.file = file;
        this.config = config;
        this.service = service;
        this.endpoint = service.connectConsumer(this);
    }

    /**
     * Starts the session and returns once its data sources have started, so the application's first
     * events (right after premain) are traced.
     */
    static AgentSession start(TracingService service, String name, SessionRequest.Mode mode, Path file,
                              TraceConfig requested) throws Exception {
        TraceConfig.Builder config = requested.toBuilder().setUniqueSessionName(name);
        if (mode == SessionRequest.Mode.FILE) {
            config.setWriteIntoFile(true)
                    .setOutputPath(file.toAbsolutePath().toString())
                    // uint32 fields: any value but 0 (not set) is the requester's, 2^31 ms and more included.
                    .setFileWritePeriodMs(requested.getFileWritePeriodMs() != 0
                            ? requested.getFileWritePeriodMs() : FILE_WRITE_PERIOD_MS)
                    .setFlushPeriodMs(requested.getFlushPeriodMs() != 0 ? requested.getFlushPeriodMs() : FLUSH_PERIOD_MS);
        } else {
            config.setWriteIntoFile(false).clearOutputPath();
            try {
                // A bad path fails the start, not the end. Only checked: the file is written whole, beside
                // the target, when the session ends (onTracingDisabled), so a JVM killed meanwhile leaves
                // no temporary file, and a file already at the target stays as it was until then.
                WholeTraceFile.checkWritable(file);
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("cannot write the trace file '" + file + "': " + FileErrors.plainly(e));
            }
        }
        AgentSession session = new AgentSession(service, name, mode, file, config.build());
        try {
            session.id = session.endpoint.enableTracing(session.config).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            // Reported as not started: so it must not run on unseen (nothing would ever stop it).
            session.endpoint.freeBuffers();
            throw e;
        }
        return session;
    }

    long id() {
        return id;
    }

    /** Completes with "" once the file is complete, or with what went wrong. */
    CompletableFuture<String> ended() {
        return ended;
    }

    @Override
    public void onTracingDisabled(String error) {
        // Runs on the service thread: each call below posts a task that runs after this one, in order,
        // so the status still sees the session (after the last read: its final counters) and the read
        // comes before the buffers are freed.
        if (mode == SessionRequest.Mode.FILE || error != null) {
            endWith(error);
            return;
        }
        WholeTraceFile ringFile;
        try {
            ringFile = WholeTraceFile.beside(file);
        } catch (Throwable t) {
            // An Error too (no direct memory for the file's ring): the session must still end, its buffers
            // freed and ended() completed, or a stop would wait for it forever.
            endWith(writingFailed(t));
            return;
        }
        endpoint.readBuffers(ringFile.writer()).whenComplete((packets, readError) -> {
            String failure = readError != null ? "writing " + file + " failed: " + readError.getMessage() : null;
            try {
                failure = putInPlace(ringFile, failure);
            } catch (Throwable t) {
                failure = failure != null ? failure : writingFailed(t);
            } finally {
                // Not logged here: finish logs it, once, for the registry and every surface to show.
                endWith(failure);
            }
        });
    }

    /**
     * Commits the ring session's file unless {@code failure} (the read's) is set, and closes it either
     * way (a file not committed is deleted). Returns the read's failure, or the commit's or the close's.
     */
    private String putInPlace(WholeTraceFile ringFile, String failure) {
        String result = failure;
        try {
            if (result == null) {
                ringFile.commit();
            }
        } catch (IOException e) {
            result = writingFailed(e);
        } finally {
            try {
                ringFile.close();
            } catch (IOException e) {
                result = result != null ? result : writingFailed(e);
            }
        }
        return result;
    }

    private String writingFailed(Throwable t) {
        return "writing " + file + " failed: " + (t instanceof Exception e ? FileErrors.plainly(e) : t.toString());
    }

    /** Ends the session with {@code failure} (null: none) once its final status is taken and its buffers freed. */
    private void endWith(String failure) {
        captureFinalStatus();
        endpoint.freeBuffers().whenComplete((v, e) -> finish(failure));
    }

    private void captureFinalStatus() {
        service.status().whenComplete((status, statusError) -> {
            if (status != null) {
                finalStatus = status.session(id);
            }
        });
    }

    /** The service's view of the session as it ended, or null while it runs. */
    SessionStatus finalStatus() {
        return finalStatus;
    }

    /** Marks the session as the agent's own: its end is logged at debug level, not to the user. */
    void markInternal() {
        internal = true;
    }

    private void finish(String error) {
        if (error != null) {
            LOG.atLevel(internal ? Level.DEBUG : Level.ERROR)
                    .log("jtrace: session '{}': trace {} is incomplete: {}", name, file, error);
            ended.complete(error);
        } else {
            LOG.atLevel(internal ? Level.DEBUG : Level.INFO).log("jtrace: session '{}': trace written to {}", name, file);
            ended.complete("");
        }
    }

    /** Asks the session to stop; {@link #ended()} completes when its file is complete. */
    void requestStop() {
        endpoint.disableTracing();
    }

    /**
     * Stops the session (if still running) and waits until the file is complete and the registry has
     * recorded the end; returns what it recorded, or null if that took longer than {@code timeoutMillis}.
     */
    SessionInfo stopAndWait(long timeoutMillis) throws InterruptedException {
        requestStop();
        try {
            return endInfo.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            return null;
        }
    }

    /** Asks every producer of the session to commit what it has; false if one did not answer in time. */
    boolean flush() throws Exception {
        return endpoint.flush(FLUSH_TIMEOUT_MS).get(FLUSH_TIMEOUT_MS + 5000, TimeUnit.MILLISECONDS);
    }

    /** Bytes in the file now: what the service reported while streaming, the file's size once complete. */
    long fileBytes() {
        try {
            return ended.isDone() && Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
