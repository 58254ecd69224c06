package io.jtrace.service;

import io.jtrace.protos.TraceConfig;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.service.clock.ClockReader;
import io.jtrace.service.output.FileErrors;
import io.jtrace.service.output.TraceFileWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tracing sessions from start to end: admitting one within the service's limits, with its buffers and
 * file; its timers (duration_ms, flush_period_ms, incremental state clears, file_write_period_ms);
 * flushes; stopping (data sources, then a flush, then the last read-out) and freeing. Service thread
 * only.
 */
final class SessionLifecycle {
    // Logs as TracingService: the agent prints the short logger name, and that is the name users know.
    private static final Logger LOG = LoggerFactory.getLogger(TracingService.class);
    /**
     * Shortest time from a flush's start to its copy of the chunks writers hold (see {@link #flush}):
     * a few scheduler slices of a machine with more runnable threads than cores.
     */
    static final long HELD_COPY_GRACE_MILLIS = 20;

    /** Data sources that notify on stop get this long when the config sets no data_source_stop_timeout_ms. */
    static final long DEFAULT_STOP_TIMEOUT_MS = 5000;
    static final long DEFAULT_FILE_WRITE_PERIOD_MS = 5000;
    static final long MIN_FILE_WRITE_PERIOD_MS = 100;

    private final ServiceConfig config;
    private final int serviceUid;
    private final ServiceThread thread;
    private final Map<Long, TracingSession> sessions;
    private final Map<Integer, TraceBuffer> buffers;
    private final Map<Integer, TracingSession> bufferOwners;
    private final ProducerRegistry producers;
    private final DataSourceInstances instances;
    private final FlushCoordinator flushes;
    private final SessionOutput output;
    private long nextSessionId = 1;
    private int nextBufferId = 1;
    private long totalBufferBytes;

    SessionLifecycle(ServiceConfig config, int serviceUid, ServiceThread thread, Map<Long, TracingSession> sessions,
                     Map<Integer, TraceBuffer> buffers, Map<Integer, TracingSession> bufferOwners,
                     ProducerRegistry producers, DataSourceInstances instances, FlushCoordinator flushes,
                     SessionOutput output) {
        this.config = config;
        this.serviceUid = serviceUid;
        this.thread = thread;
        this.sessions = sessions;
        this.buffers = buffers;
        this.bufferOwners = bufferOwners;
        this.producers = producers;
        this.instances = instances;
        this.flushes = flushes;
        this.output = output;
    }

    // ------------------------------------------------------------------ start

    TracingSession enable(Consumer consumer, int consumerUid, TraceConfig traceConfig) {
        SessionConfigValidator.validate(traceConfig, config.smbPageSize());
        String name = traceConfig.getUniqueSessionName();
        if (!name.isEmpty()) {
            for (TracingSession other : sessions.values()) {
                if (name.equals(other.config.getUniqueSessionName())) {
                    throw new SessionNameTakenException("a session named '" + name + "' is already running (session "
                            + other.id + ")");
                }
            }
        }
        if (sessions.size() >= config.maxSessions()) {
            throw new ServiceLimitException("too many tracing sessions: " + sessions.size()
                    + " running, the limit is " + config.maxSessions());
        }
        long ofUid = sessions.values().stream().filter(s -> s.consumerUid == consumerUid).count();
        if (ofUid >= config.maxSessionsPerUid()) {
            throw new ServiceLimitException("too many tracing sessions for uid " + consumerUid + ": " + ofUid
                    + " running, the limit per uid is " + config.maxSessionsPerUid());
        }
        long requested = 0;
        for (TraceConfig.BufferConfig b : traceConfig.getBuffersList()) {
            requested += Integer.toUnsignedLong(b.getSizeKb()) * 1024; // size_kb: a uint32
        }
        if (totalBufferBytes + requested > config.maxTotalBufferBytes()) {
            throw new ServiceLimitException("trace buffers of " + requested + " bytes would exceed the service limit of "
                    + config.maxTotalBufferBytes() + " bytes (" + totalBufferBytes + " in use)");
        }
        TraceFileWriter file = null;
        // The service would open output_path with its own rights: only a consumer of its own user may ask
        // for that (Perfetto has the consumer pass an open file instead). Others read their trace out.
        if (traceConfig.getWriteIntoFile() && consumerUid != serviceUid) {
            throw new InvalidConfigException("write_into_file is only for consumers of the service's own user (uid "
                    + serviceUid + "); read the trace with ReadBuffers instead");
        }
        if (traceConfig.getWriteIntoFile()) {
            try {
                file = new TraceFileWriter(Path.of(traceConfig.getOutputPath()));
            } catch (IOException | RuntimeException e) {
                throw new InvalidConfigException("the trace file '" + traceConfig.getOutputPath()
                        + "' (output_path) cannot be written: " + FileErrors.plainly(e));
            }
        }
        TracingSession session = new TracingSession(nextSessionId++, consumer, consumerUid, traceConfig,
                ClockReader.snapshot());
        session.file = file;
        if (file != null) {
            try {
                output.startFile(session);
            } catch (IOException | UncheckedIOException e) {
                closeQuietly(file);
                throw new InvalidConfigException("the trace file '" + traceConfig.getOutputPath()
                        + "' (output_path) cannot be written: " + FileErrors.plainly(e));
            }
        }
        for (TraceConfig.BufferConfig b : traceConfig.getBuffersList()) {
            int bufferId = nextBufferId++;
            TraceBuffer.Policy policy = b.getFillPolicy() == TraceConfig.BufferConfig.FillPolicy.DISCARD
                    ? TraceBuffer.Policy.DISCARD : TraceBuffer.Policy.RING;
            buffers.put(bufferId, new TraceBuffer(Integer.toUnsignedLong(b.getSizeKb()) * 1024, policy));
            bufferOwners.put(bufferId, session);
            session.bufferIds.add(bufferId);
            if (policy == TraceBuffer.Policy.RING && file == null) {
                session.overwritingBuffers.add(bufferId);
            }
        }
        session.ringTurnover = RingTurnover.of(session, buffers);
        totalBufferBytes += requested;
        sessions.put(session.id, session);
        instances.startAll(session);
        scheduleTimers(session);
        DataSourceInstances.checkStarted(session);
        return session;
    }

    private void scheduleTimers(TracingSession session) {
        TraceConfig c = session.config;
        if (c.getDurationMs() != 0) {
            // duration_ms: a uint32.
            session.timers.add(thread.postAfter(Integer.toUnsignedLong(c.getDurationMs()), () -> disable(session)));
        }
        long flushPeriod = flushPeriodMillis(c);
        if (flushPeriod != 0) {
            session.timers.add(thread.postEvery(flushPeriod, () -> {
                if (session.state == TracingSession.State.STARTED) {
                    flush(session, flushTimeout(session));
                }
            }));
        }
        long clearPeriod = clearPeriodMillis(c);
        if (clearPeriod != 0) {
            session.timers.add(thread.postEvery(clearPeriod, () -> instances.clearIncrementalState(session)));
        }
        if (session.file != null) {
            long period = fileWritePeriodMillis(c);
            session.timers.add(thread.postEvery(period, () -> output.writeIntoFile(session)));
        }
        long startTimeout = stopTimeout(session);
        session.timers.add(thread.postAfter(startTimeout, () -> {
            if (!session.started.isDone()) {
                LOG.warn("jtrace: session {}: data sources {} did not report started within {} ms; tracing anyway",
                        session.id, DataSourceInstances.notStarted(session), startTimeout);
                session.started.complete(session.id);
            }
        }));
    }

    // ------------------------------------------------------------------ flush

    /**
     * Asks the session's producers to commit; once they have (or the timeout passed), a running session
     * that streams into a file also takes what writers still hold and writes it: a thread that went quiet
     * keeps its last events in its writer's chunk, which no commit brings. Completes after that write.
     */
    CompletableFuture<Boolean> flush(TracingSession session, long timeoutMillis) {
        long began = System.nanoTime();
        if (session.file != null) {
            // Before the producers are asked: a writer that appends a chunk from here on has everything it
            // wrote before the flush in the file, and keeps its promotion.
            producers.flushBegins(session);
        }
        CompletableFuture<Boolean> committed = flushes.flush(session, instances.byProducer(session), timeoutMillis);
        if (session.file == null) {
            return committed;
        }
        return committed.thenCompose(ok -> {
            // No sooner than HELD_COPY_GRACE_MILLIS after the flush began: a busy thread that lost its CPU
            // for a few milliseconds meanwhile (more threads than cores) appends a chunk in that time and
            // keeps its promotion, instead of sending its chunks through the service for a while.
            long wait = Math.max(0, HELD_COPY_GRACE_MILLIS - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began));
            return thread.callAfter(wait, () -> {
                if (session.state == TracingSession.State.STARTED) {
                    producers.scrapeHeld(session);
                    output.writeIntoFile(session);
                }
                return ok;
            });
        });
    }

    private long flushTimeout(TracingSession session) {
        return flushTimeoutMillis(session.config, config.defaultFlushTimeoutMillis());
    }

    // The config's periods and timeouts are uint32 milliseconds (up to about 49.7 days), 0 for "not set";
    // a value of 2^31 or more is a large period, not a negative one. The service thread's timers take
    // long milliseconds, so every value is honoured as given.

    /** flush_period_ms; 0: no periodic flush. */
    static long flushPeriodMillis(TraceConfig c) {
        return Integer.toUnsignedLong(c.getFlushPeriodMs());
    }

    /** incremental_state_config.clear_period_ms; 0: no periodic clear. */
    static long clearPeriodMillis(TraceConfig c) {
        return Integer.toUnsignedLong(c.getIncrementalStateConfig().getClearPeriodMs());
    }

    /** file_write_period_ms, at least {@link #MIN_FILE_WRITE_PERIOD_MS}; 0: the default. */
    static long fileWritePeriodMillis(TraceConfig c) {
        long period = Integer.toUnsignedLong(c.getFileWritePeriodMs());
        return period != 0 ? Math.max(MIN_FILE_WRITE_PERIOD_MS, period) : DEFAULT_FILE_WRITE_PERIOD_MS;
    }

    /** flush_timeout_ms; 0: {@code defaultMillis}. */
    static long flushTimeoutMillis(TraceConfig c, long defaultMillis) {
        long t = Integer.toUnsignedLong(c.getFlushTimeoutMs());
        return t != 0 ? t : defaultMillis;
    }

    /** data_source_stop_timeout_ms; 0: {@link #DEFAULT_STOP_TIMEOUT_MS}. */
    static long stopTimeoutMillis(TraceConfig c) {
        long t = Integer.toUnsignedLong(c.getDataSourceStopTimeoutMs());
        return t != 0 ? t : DEFAULT_STOP_TIMEOUT_MS;
    }

    // ------------------------------------------------------------------ stop

    CompletableFuture<Void> disable(TracingSession session) {
        if (session.state != TracingSession.State.STARTED) {
            return session.disabled;
        }
        session.state = TracingSession.State.DISABLING;
        session.cancelTimers();
        session.started.complete(session.id);
        session.stopped = new CompletableFuture<>();
        instances.stopAll(session);
        DataSourceInstances.checkStopped(session);
        long timeout = stopTimeout(session);
        thread.postAfter(timeout, () -> {
            if (!session.stopped.isDone()) {
                LOG.warn("jtrace: session {}: data sources did not report stopped within {} ms", session.id, timeout);
                session.stopped.complete(null);
            }
        });
        // Stop first, then flush: the producer handles our calls in order, so the flush commits what the
        // data sources wrote while stopping.
        session.stopped.thenRun(() -> thread.post(() -> flush(session, flushTimeout(session))
                .whenComplete((ok, error) -> thread.post(() -> finishDisable(session)))));
        return session.disabled;
    }

    private void finishDisable(TracingSession session) {
        if (session.state == TracingSession.State.DISABLED) {
            return;
        }
        producers.scrape(session);
        session.state = TracingSession.State.DISABLED;
        String error = null;
        if (session.file != null) {
            error = output.finishFile(session);
        }
        session.disabled.complete(null);
        try {
            session.consumer.onTracingDisabled(error);
        } catch (RuntimeException e) {
            LOG.warn("jtrace consumer failed in onTracingDisabled", e);
        }
    }

    private long stopTimeout(TracingSession session) {
        return stopTimeoutMillis(session.config);
    }

    // ------------------------------------------------------------------ free

    /** Ends the session at once if it still runs (no waiting for data sources or a flush), then frees it. */
    void free(TracingSession session) {
        if (session.state != TracingSession.State.DISABLED) {
            instances.stopAll(session);
            finishDisable(session);
        }
        if (sessions.remove(session.id) == null) {
            return;
        }
        session.cancelTimers();
        if (session.file != null) {
            try {
                session.file.close();
            } catch (IOException e) {
                LOG.warn("jtrace: closing {} failed", session.config.getOutputPath(), e);
            }
            session.file = null;
        }
        for (int bufferId : session.bufferIds) {
            TraceBuffer buffer = buffers.remove(bufferId);
            bufferOwners.remove(bufferId);
            totalBufferBytes -= buffer.capacity();
        }
    }

    private static void closeQuietly(TraceFileWriter file) {
        try {
            file.close();
        } catch (IOException e) {
            LOG.debug("jtrace: closing {} after a failed start failed too", file, e);
        }
    }
}
