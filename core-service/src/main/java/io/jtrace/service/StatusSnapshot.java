package io.jtrace.service;

import io.jtrace.service.buffer.BufferCounters;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.service.status.BufferStatus;
import io.jtrace.service.status.ProducerStatus;
import io.jtrace.service.status.ServiceStatus;
import io.jtrace.service.status.SessionStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Builds {@link ServiceStatus}, an immutable copy of the service's state for control surfaces. Service thread only. */
final class StatusSnapshot {
    private final Map<Integer, ProducerState> producers;
    private final Map<Long, TracingSession> sessions;
    private final Map<Integer, TraceBuffer> buffers;

    StatusSnapshot(Map<Integer, ProducerState> producers, Map<Long, TracingSession> sessions,
                   Map<Integer, TraceBuffer> buffers) {
        this.producers = producers;
        this.sessions = sessions;
        this.buffers = buffers;
    }

    ServiceStatus take() {
        List<SessionStatus> sessionList = new ArrayList<>();
        for (TracingSession session : sessions.values()) {
            sessionList.add(session(session));
        }
        List<ProducerStatus> producerList = new ArrayList<>();
        for (ProducerState p : producers.values()) {
            producerList.add(new ProducerStatus(p.id, p.name, p.pid, p.uid, List.copyOf(p.dataSources.keySet())));
        }
        return new ServiceStatus(sessionList, producerList);
    }

    private SessionStatus session(TracingSession session) {
        List<BufferStatus> bufferList = new ArrayList<>();
        for (int bufferId : session.bufferIds) {
            TraceBuffer b = buffers.get(bufferId);
            // With the chunks writers appended to the file themselves and no settlement has counted yet.
            BufferCounters live = b.counters().copy();
            for (ProducerState p : producers.values()) {
                if (p.promotions != null) {
                    p.promotions.addUnsettled(bufferId, live);
                }
            }
            bufferList.add(new BufferStatus(bufferId, b.capacity(), b.used(), b.policy().name(),
                    live.toProto(b.capacity())));
        }
        List<String> sources = new ArrayList<>();
        for (TracingSession.Instance instance : session.instances) {
            ProducerState p = producers.get(instance.producerId);
            sources.add(instance.descriptor.name() + "@" + (p != null ? p.name : "producer " + instance.producerId));
        }
        return new SessionStatus(session.id, session.config.getUniqueSessionName(), session.state.name(),
                session.consumerUid, session.started.isDone(), session.config, bufferList, sources, session.file != null ? session.file.bytes() : session.fileBytesAtEnd,
                session.flushesRequested, session.flushesSucceeded, session.flushesFailed);
    }
}
