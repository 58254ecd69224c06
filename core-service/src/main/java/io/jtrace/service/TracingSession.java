package io.jtrace.service;

import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.TraceConfig;
import io.jtrace.service.clock.ClockSnapshotSchedule;
import io.jtrace.service.output.TraceFileWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/** One tracing session: its config, buffers and data source instances. Service thread only. */
final class TracingSession {
    enum State { STARTED, DISABLING, DISABLED }

    /** A data source instance started for this session on one producer. */
    static final class Instance {
        final long id;
        final int producerId;
        final DataSourceDescriptor descriptor;
        boolean started;
        boolean stopped;

        Instance(long id, int producerId, DataSourceDescriptor descriptor) {
            this.id = id;
            this.producerId = producerId;
            this.descriptor = descriptor;
        }
    }

    /** A flush waiting for acks from producers. */
    static final class PendingFlush {
        final long requestId;
        final List<Integer> waitingFor;
        final CompletableFuture<Boolean> result = new CompletableFuture<>();

        PendingFlush(long requestId, List<Integer> waitingFor) {
            this.requestId = requestId;
            this.waitingFor = waitingFor;
        }
    }

    final long id;
    final Consumer consumer;
    /** The uid of the consumer that started it (the service's own uid for in-process consumers). */
    final int consumerUid;
    final TraceConfig config;
    /** Global buffer ids, in the order of {@code config.buffers}. */
    final List<Integer> bufferIds = new ArrayList<>();
    /** Of {@link #bufferIds}, the rings that overwrite chunks nobody read: all of them unless it streams into a file. */
    final Set<Integer> overwritingBuffers = new HashSet<>();
    final List<Instance> instances = new ArrayList<>();
    final Map<Long, PendingFlush> pendingFlushes = new HashMap<>();
    final ClockSnapshot startClocks;
    /** Completes once every instance that notifies on start has started (or the start timeout passed). */
    final CompletableFuture<Long> started = new CompletableFuture<>();
    /** Completes once the instances that notify on stop have stopped (or the stop timeout passed). */
    CompletableFuture<Void> stopped;
    final CompletableFuture<Void> disabled = new CompletableFuture<>();
    /** Where the session streams its packets when the config says write_into_file, else null. */
    TraceFileWriter file;
    /**
     * Bytes its file took once the file was closed (up to a failed write, if one failed): what the status
     * reports after the end (a pipe has no size to read afterwards).
     */
    long fileBytesAtEnd;
    /**
     * The file failed or reached max_file_size_bytes: the session is stopping, and until it ends (one
     * last read in finishFile) nothing more is written, so a stop that moves many chunks neither retries
     * a broken file per chunk nor grows a capped one.
     */
    boolean fileWritesStopped;
    /** A write into the file failed and was logged: the close that follows fails the same way, and is not logged again. */
    boolean fileFailureLogged;
    /** When its rings have turned far enough to need its incremental state cleared; null if never (see RingTurnover). */
    RingTurnover ringTurnover;
    State state = State.STARTED;
    boolean headerPacketsEmitted;
    final ClockSnapshotSchedule clockSnapshots;
    final List<ScheduledFuture<?>> timers = new ArrayList<>();
    long flushesRequested;
    long flushesSucceeded;
    long flushesFailed;

    TracingSession(long id, Consumer consumer, int consumerUid, TraceConfig config, ClockSnapshot startClocks) {
        this.id = id;
        this.consumer = consumer;
        this.consumerUid = consumerUid;
        this.config = config;
        this.startClocks = startClocks;
        this.clockSnapshots = new ClockSnapshotSchedule(config);
    }

    boolean hasProducer(int producerId) {
        for (Instance instance : instances) {
            if (instance.producerId == producerId) {
                return true;
            }
        }
        return false;
    }

    Instance instance(long instanceId) {
        for (Instance instance : instances) {
            if (instance.id == instanceId) {
                return instance;
            }
        }
        return null;
    }

    void cancelTimers() {
        for (ScheduledFuture<?> timer : timers) {
            timer.cancel(false);
        }
        timers.clear();
    }
}
