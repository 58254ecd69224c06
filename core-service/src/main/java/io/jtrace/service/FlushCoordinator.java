package io.jtrace.service;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flush protocol (DESIGN §4 step 7): ask every producer of a session to commit what it has, under
 * one request id; complete when all have acked (acking N acks every earlier request of that producer)
 * or when the timeout passes, so a producer that never answers holds up no one. Service thread only.
 */
final class FlushCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(FlushCoordinator.class);

    private final Map<Integer, ProducerState> producers;
    private final ServiceThread thread;
    private long nextRequestId = 1;

    FlushCoordinator(Map<Integer, ProducerState> producers, ServiceThread thread) {
        this.producers = producers;
        this.thread = thread;
    }

    /** Flushes the session's producers; true if every one answered within {@code timeoutMillis}. */
    CompletableFuture<Boolean> flush(TracingSession session, Map<Integer, long[]> instancesByProducer, long timeoutMillis) {
        session.flushesRequested++;
        long requestId = nextRequestId++;
        TracingSession.PendingFlush pending =
                new TracingSession.PendingFlush(requestId, new ArrayList<>(instancesByProducer.keySet()));
        if (instancesByProducer.isEmpty()) {
            session.flushesSucceeded++;
            pending.result.complete(true);
            return pending.result;
        }
        session.pendingFlushes.put(requestId, pending);
        for (Map.Entry<Integer, long[]> e : instancesByProducer.entrySet()) {
            producers.get(e.getKey()).callbacks.flush(requestId, e.getValue());
        }
        thread.postAfter(timeoutMillis, () -> {
            if (session.pendingFlushes.remove(requestId) != null) {
                session.flushesFailed++;
                LOG.warn("jtrace: flush {} of session {} timed out after {} ms waiting for producer(s) {}",
                        requestId, session.id, timeoutMillis, pending.waitingFor);
                pending.result.complete(false);
            }
        });
        return pending.result;
    }

    /** A producer acked {@code requestId}, and with it every earlier request. */
    void acked(Collection<TracingSession> sessions, int producerId, long requestId) {
        for (TracingSession session : sessions) {
            for (TracingSession.PendingFlush flush : new ArrayList<>(session.pendingFlushes.values())) {
                if (flush.requestId <= requestId) {
                    ack(session, flush, producerId);
                }
            }
        }
    }

    /** A producer went away: nothing it owed is awaited any longer. */
    void producerGone(Collection<TracingSession> sessions, int producerId) {
        for (TracingSession session : sessions) {
            for (TracingSession.PendingFlush flush : new ArrayList<>(session.pendingFlushes.values())) {
                ack(session, flush, producerId);
            }
        }
    }

    private static void ack(TracingSession session, TracingSession.PendingFlush flush, int producerId) {
        flush.waitingFor.remove(Integer.valueOf(producerId));
        if (flush.waitingFor.isEmpty() && session.pendingFlushes.remove(flush.requestId) != null) {
            session.flushesSucceeded++;
            flush.result.complete(true);
        }
    }
}
