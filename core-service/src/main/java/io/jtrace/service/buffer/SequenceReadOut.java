package io.jtrace.service.buffer;

import io.jtrace.shm.abi.ChunkHeader;

/**
 * Reads one sequence's stored chunks out of a {@link TraceBuffer} as packets, in chunk order, and
 * decides where a running session's read must stop: at a chunk that still needs patching, at a chunk
 * copied while its untrusted writer held it, and at a gap in chunk ids an out-of-order commit may yet
 * fill. A gap known to be lost is read past and reported once. Turning a chunk's bytes into packets is
 * {@link ChunkPacketReader}'s job. Service thread only, like its buffer.
 */
final class SequenceReadOut {
    private final BufferCounters counters;
    private final ChunkPacketReader packets;

    SequenceReadOut(BufferCounters counters) {
        this.counters = counters;
        this.packets = new ChunkPacketReader(counters);
    }

    /**
     * Delivers what {@code seq} has ready (everything, once {@code sessionEnded}) to {@code sink} and
     * hands each chunk read back to {@code buffer}; returns the number of packets delivered.
     */
    long read(TraceBuffer buffer, byte[] ring, SequenceState seq, SequenceIdentity identity, PacketSink sink,
              boolean sessionEnded) {
        long delivered = 0;
        SequenceKey key = seq.key;
        int sequenceId = TraceBuffer.sequenceIdOf(seq, identity);
        int pid = identity.pid(key.producerId());
        int uid = identity.uid(key.producerId());
        boolean trusted = identity.trusted(key.producerId());
        while (!seq.chunks.isEmpty()) {
            ChunkRecord chunk = seq.chunks.first();
            boolean gap = seq.nextOrdinal >= 0 && chunk.ordinal != seq.nextOrdinal;
            boolean inOrder = !gap || knownLost(seq, chunk);
            // A chunk its trusted writer still holds (copied by a flush's scrape), next in its sequence, is
            // read as far as it goes; the next copy of it holds the same bytes up to there and is read on
            // from there. Not before the sequence's first chunk: an earlier one may still be on its way.
            boolean next = seq.nextOrdinal >= 0 ? inOrder : chunk.chunkId == 0;
            boolean partial = !sessionEnded && !chunk.complete && trusted && !needsPatching(chunk) && next;
            if (!sessionEnded && !partial && (!chunk.complete || needsPatching(chunk) || !inOrder)) {
                break;
            }
            openedAtChunkZero(seq, chunk, trusted);
            if (seq.partialOrdinal == chunk.ordinal) {
                chunk.readPos = seq.partialPos;
                chunk.readPackets = seq.partialPackets;
            } else if (seq.takeLossesBefore(chunk.ordinal) || gap) {
                seq.lossPending = true;
                seq.pendingFragment = null;
            }
            delivered += packets.read(ring, chunk, seq, sequenceId, pid, uid, trusted, sink);
            seq.chunks.remove(chunk.ordinal);
            buffer.released(chunk);
            if (partial) {
                // This copy is done with: its ring space is free, and the sequence reads on from this
                // chunk (a copy of an older one is refused as read already).
                seq.partialOrdinal = chunk.ordinal;
                seq.partialPos = chunk.readPos;
                seq.partialPackets = chunk.readPackets;
                seq.nextOrdinal = chunk.ordinal;
                break;
            }
            seq.partialOrdinal = -1;
            seq.nextOrdinal = chunk.ordinal + 1;
            counters.chunksRead++;
        }
        return delivered;
    }

    /**
     * Reads {@code chunk}, held in {@code data} (not the ring): the next chunk of {@code seq}, complete,
     * with nothing of the sequence before it waiting to be read and no loss to report first (see
     * {@link TraceBuffer#readThrough}). Returns the number of packets delivered.
     */
    long readNext(byte[] data, ChunkRecord chunk, SequenceState seq, SequenceIdentity identity, PacketSink sink) {
        int producerId = seq.key.producerId();
        boolean trusted = identity.trusted(producerId);
        openedAtChunkZero(seq, chunk, trusted);
        long delivered = packets.read(data, chunk, seq, TraceBuffer.sequenceIdOf(seq, identity),
                identity.pid(producerId), identity.uid(producerId), trusted, sink);
        seq.nextOrdinal = chunk.ordinal + 1;
        counters.chunksRead++;
        return delivered;
    }

    /**
     * A trusted writer (this process's) opens its sequence in its chunk 0, with a clear when it has
     * incremental state: read from there, the sequence lacks nothing, and its packets keep the read-out's
     * fast path. Any other sequence waits for a clear, as trace_processor does.
     */
    private static void openedAtChunkZero(SequenceState seq, ChunkRecord chunk, boolean trusted) {
        if (seq.nextOrdinal < 0 && trusted && chunk.chunkId == 0) {
            seq.awaitingIncrementalState = false;
        }
    }

    static boolean needsPatching(ChunkRecord chunk) {
        return (chunk.flags & ChunkHeader.FLAG_NEEDS_PATCHING) != 0;
    }

    /** Every chunk between the last one read and {@code chunk} is known to be lost. */
    private static boolean knownLost(SequenceState seq, ChunkRecord chunk) {
        return seq.lostBetween(seq.nextOrdinal, chunk.ordinal) == chunk.ordinal - seq.nextOrdinal;
    }
}
