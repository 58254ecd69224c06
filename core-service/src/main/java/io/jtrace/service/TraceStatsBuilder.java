package io.jtrace.service;

import io.jtrace.protos.TraceStats;
import io.jtrace.service.buffer.TraceBuffer;
import java.util.Map;

/**
 * The TraceStats packet at the end of a trace: the service's counters as they are now, the session's
 * flushes and its buffers' counters. Service thread only.
 */
final class TraceStatsBuilder {
    private final Map<Integer, ProducerState> producers;
    private final Map<Long, TracingSession> sessions;
    private final Map<Integer, TraceBuffer> buffers;
    private final SequenceRegistry sequences;
    private final ChunkMover chunkMover;

    TraceStatsBuilder(Map<Integer, ProducerState> producers, Map<Long, TracingSession> sessions,
                      Map<Integer, TraceBuffer> buffers, SequenceRegistry sequences, ChunkMover chunkMover) {
        this.producers = producers;
        this.sessions = sessions;
        this.buffers = buffers;
        this.sequences = sequences;
        this.chunkMover = chunkMover;
    }

    TraceStats build(TracingSession session) {
        TraceStats.Builder stats = TraceStats.newBuilder()
                .setProducersConnected(producers.size())
                .setProducersSeen(sequences.producersSeen())
                .setTracingSessions(sessions.size())
                .setTotalBuffers(buffers.size())
                .setFlushesRequested(session.flushesRequested)
                .setFlushesSucceeded(session.flushesSucceeded)
                .setFlushesFailed(session.flushesFailed)
                .setChunksDiscarded(chunkMover.refusedChunks + chunkMover.discardedScrapes)
                .setPatchesDiscarded(chunkMover.refusedPatches);
        long invalidPackets = 0;
        for (int bufferId : session.bufferIds) {
            TraceBuffer buffer = buffers.get(bufferId);
            stats.addBufferStats(buffer.counters().toProto(buffer.capacity()));
            invalidPackets += buffer.counters().invalidPackets();
        }
        return stats.setInvalidPackets(invalidPackets).build();
    }
}
