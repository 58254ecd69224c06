package io.jtrace.service.buffer;

/** One chunk copied out of a producer's SMB: its header fields and a private copy of its payload. */
final class ChunkRecord {
    final SequenceKey sequence;
    final int chunkId;
    /** Chunk id unwrapped to 64 bits within its sequence, so ordering survives the 2^32 wrap. */
    final long ordinal;
    int packetCount;
    int flags;
    byte[] payload;
    /** False for a chunk scraped while its writer still held it: its last packet may be unfinished. */
    boolean complete;
    /** Insertion order in the buffer, for overwriting the oldest first. */
    long insertionSeq;

    ChunkRecord(SequenceKey sequence, int chunkId, long ordinal) {
        this.sequence = sequence;
        this.chunkId = chunkId;
        this.ordinal = ordinal;
    }

    int size() {
        return payload.length;
    }
}
