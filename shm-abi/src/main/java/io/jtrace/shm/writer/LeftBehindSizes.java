package io.jtrace.shm.writer;

import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.WireFormat;

/**
 * The size fields of a writer's open packet that stayed behind in a chunk it released when the packet
 * moved on to the next one: each gets its value later, as a patch through the commit thread, and the
 * last patch of a chunk says so (the chunk waits for it). Writer thread only.
 */
final class LeftBehindSizes {
    private final int writerId;
    private final ChunkCommitter committer;
    private final int[] chunkId = new int[ProtoWriter.MAX_NESTING];
    /** From the start of that chunk's payload. */
    private final int[] offset = new int[ProtoWriter.MAX_NESTING];
    /** Lowest level whose size field lies in the same chunk: its patch is that chunk's last. */
    private final int[] lowestLevel = new int[ProtoWriter.MAX_NESTING];

    LeftBehindSizes(int writerId, ChunkCommitter committer) {
        this.writerId = writerId;
        this.committer = committer;
    }

    /**
     * Remembers where the size fields of {@code writer}'s open nested messages lie when they are in its
     * current fragment, which stays behind in chunk {@code leftChunkId} (whose payload starts at
     * {@code payloadStart}). Returns whether there was any: the chunk then needs patching.
     */
    boolean leave(ProtoWriter writer, int leftChunkId, int payloadStart) {
        int lowest = -1;
        for (int level = 1; level < writer.depth(); level++) {
            if (writer.fragmentOf(level) == writer.fragment()) {
                if (lowest < 0) {
                    lowest = level;
                }
                chunkId[level] = leftChunkId;
                offset[level] = writer.sizeFieldOffset(level) - payloadStart;
                lowestLevel[level] = lowest;
            }
        }
        return lowest >= 0;
    }

    /** The size of the message at {@code level}, for its size field left in a released chunk. */
    void send(int level, int size) {
        committer.patch(new CommitRequest.Patch(writerId, chunkId[level], offset[level],
                WireFormat.redundantVarint(size), level > lowestLevel[level]));
    }

    /**
     * {@code writer}'s open packet is lost: chunks that wait for patches of its size fields get them
     * anyway (with a size of 0: the reader drops the packet since its continuation never comes), so they
     * do not block their sequence.
     */
    void abandon(ProtoWriter writer) {
        for (int level = writer.depth() - 1; level >= 1; level--) {
            if (writer.fragmentOf(level) != writer.fragment()) {
                send(level, 0);
            }
        }
    }
}
