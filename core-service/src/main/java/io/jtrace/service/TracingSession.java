package io.jtrace.service;

import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.TraceConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/** One tracing session: its config, buffers and data source instances. Service thread only. */
final class TracingSession {
    enum State { STARTED, DISABLING, DISABLED }

    /** A data source instance started for this session on one producer. */
    record Instance(long id, int producerId, String name) {}

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
    final TraceConfig config;
    /** Global buffer ids, in the order of {@code config.buffers}. */
    final List<Integer> bufferIds = new ArrayList<>();
    final List<Instance> instances = new ArrayList<>();
    final Map<Long, PendingFlush> pendingFlushes = new HashMap<>();
    final ClockSnapshot startClocks;
    final CompletableFuture<Void> disabled = new CompletableFuture<>();
    State state = State.STARTED;
    boolean headerPacketsEmitted;
    ScheduledFuture<?> durationTimer;
    long flushesRequested;
    long flushesSucceeded;
    long flushesFailed;

    TracingSession(long id, Consumer consumer, TraceConfig config, ClockSnapshot startClocks) {
        this.id = id;
        this.consumer = consumer;
        this.config = config;
        this.startClocks = startClocks;
    }

    boolean hasProducer(int producerId) {
        for (Instance instance : instances) {
            if (instance.producerId() == producerId) {
                return true;
            }
        }
        return false;
    }
}
