package io.jtrace.service.buffer;

import io.jtrace.shm.abi.ChunkHeader;

/**
 * Where one stored chunk's payload lies in the ring, with its header fields. Records are reused once
 * their chunk has left the ring (see {@link TraceBuffer}), so storing chunks allocates nothing in steady
 * state.
 */
final class ChunkRecord {
    SequenceState sequence;
    int chunkId;
    /** Chunk id unwrapped to 64 bits within its sequence, so ordering survives the 2^32 wrap. */
    long ordinal;
    /** Start on the buffer's virtual stream: overwritten once the writer passes vstart + capacity. */
    long vstart;
    /** Start in the ring array. */
    int offset;
    int size;
    int packetCount;
    int flags;
    /** False for a chunk scraped while its writer still held it: only its counted packets are whole. */
    boolean complete;
    /**
     * A trusted writer's read-out hints (CommitRequest): where the payload's whole packets end, none of
     * them continued on the next chunk nor a drop marker but a leading one (-1 when not known), and the sequence id its
     * writer wrote into their slots (0 for none). When that id is the sequence's, the packets after the
     * first are copied to a file as one run, without a walk over their frames.
     */
    int payloadEnd = -1;
    int stampedSequenceId;
    /**
     * Where the read-out starts in the payload, and the packets before it: 0 for a chunk read whole;
     * for a later copy of a chunk read while its writer held it, where that read stopped
     * ({@link SequenceState#partialOrdinal}). The read leaves where it ended here.
     */
    int readPos;
    int readPackets;
    /** Read or replaced: its ring space is free, the record waits only to leave the age queue. */
    boolean dead;
    /** Next record in the buffer's free list while unused. */
    ChunkRecord nextFree;

    ChunkRecord init(SequenceState sequence, int chunkId, long ordinal, long vstart, int offset, int size) {
        this.sequence = sequence;
        this.chunkId = chunkId;
        this.ordinal = ordinal;
        this.vstart = vstart;
        this.offset = offset;
        this.size = size;
        this.dead = false;
        this.nextFree = null;
        this.readPos = 0;
        this.readPackets = 0;
        return this;
    }

    /** The header fields of the copy just stored (count and flags from the chunk's packets word). */
    void header(int packetsWord, boolean complete) {
        this.packetCount = ChunkHeader.packetCount(packetsWord);
        this.flags = ChunkHeader.flags(packetsWord);
        this.complete = complete;
        this.payloadEnd = -1;
        this.stampedSequenceId = 0;
    }
}
