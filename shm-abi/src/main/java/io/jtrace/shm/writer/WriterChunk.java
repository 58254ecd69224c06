package io.jtrace.shm.writer;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.WireFormat;
import java.nio.ByteBuffer;

/**
 * The SMB chunk a {@link TraceWriter} holds: taking one from the arbiter, publishing its packets to
 * readers of the chunk, handing it to the commit thread. The packets themselves (frames, fragments,
 * drops) are the subclass's. A superclass rather than a member object so that the writer's hot path
 * reads these fields as its own, with no extra load: both halves run on the writer's one thread.
 *
 * <h2>Publication</h2>
 * {@link #publish} stores the chunk's packet count with a release store, so a reader that loads it with
 * acquire (the service scraping a chunk still being written) sees every packet counted; the CAS to
 * COMPLETE in {@link #release} publishes every byte written into the chunk.
 */
abstract class WriterChunk {
    static final int NO_CHUNK = -1;
    /**
     * Smallest chunk a writer takes: its header, two frames of a tag and a 4-byte size (a drop marker and
     * a packet) and a small packet.
     */
    static final int MIN_CHUNK = ChunkHeader.SIZE + 2 * (1 + WireFormat.RESERVED_SIZE_BYTES) + 64;

    final ChunkArbiter arbiter;
    final SharedMemoryAbi abi;
    final ByteBuffer smb;
    final int writerId;
    final int targetBuffer;
    /** The sequence id this writer proposes ({@link ChunkArbiter#proposeSequenceId}; 0 for none). */
    final int proposedSequenceId;

    int chunkHandle = NO_CHUNK;
    int chunkOffset;
    int chunkEnd;
    int chunkId;
    int chunkFlags;
    /** Flags every chunk of this writer carries ({@link ChunkHeader#FLAG_NEEDS_INCREMENTAL_STATE} or 0). */
    int writerFlags;
    int packetCount;
    /** End of the chunk's last whole packet: what the service may copy without walking the frames. */
    int committedEnd;
    /** A drop marker follows a packet in the chunk: the service must walk its frames. */
    boolean chunkHasMarker;
    private int nextChunkId;

    WriterChunk(ChunkArbiter arbiter, int targetBuffer, int firstChunkId) {
        int id = arbiter.allocateWriterId();
        if (id < 0) {
            throw new IllegalStateException("all " + ChunkHeader.MAX_WRITER_ID + " writer ids are in use");
        }
        this.nextChunkId = firstChunkId;
        this.arbiter = arbiter;
        this.abi = arbiter.abi();
        this.smb = abi.smb().buffer();
        this.writerId = id;
        this.targetBuffer = targetBuffer;
        this.proposedSequenceId = arbiter.proposeSequenceId();
    }

    /**
     * A free chunk's handle, or -1. {@code large}: the largest chunk there is, if one is free, else any.
     * For a packet that already spans chunks (a big one: fewer fragments), and for a writer that filled
     * its last chunk: a busy writer then hands over a chunk, and the service moves one, a few times less
     * often. A writer that was flushed or is new takes a small chunk, so an SMB still holds one for each
     * of thousands of threads; and only so many writers hold a large one at once
     * ({@link ChunkArbiter#tryHoldPageChunk}: the place is given back in {@link #release}). {@code stall}:
     * waits up to {@code stallNanos} for one to be freed.
     */
    final int freeChunk(boolean large, boolean stall, long stallNanos) {
        int handle = -1;
        if (large && arbiter.tryHoldPageChunk()) {
            handle = arbiter.acquireChunk(arbiter.maxChunkSize());
            if (handle < 0) {
                arbiter.pageChunkReleased();
            }
        }
        if (handle < 0) {
            handle = arbiter.acquireChunk(MIN_CHUNK);
        }
        if (handle < 0 && stall) {
            handle = arbiter.acquireChunkStalling(MIN_CHUNK, stallNanos);
        }
        return handle;
    }

    /** Makes the chunk of {@code handle} the current one: its header written, no packets yet. */
    final void take(int handle, boolean continuation) {
        PageLayout layout = ChunkArbiter.layoutOf(handle);
        chunkHandle = handle;
        chunkOffset = abi.chunkOffset(ChunkArbiter.pageOf(handle), layout, ChunkArbiter.indexOf(handle));
        chunkEnd = chunkOffset + layout.chunkSize(abi.pageSize());
        chunkId = nextChunkId++;
        chunkFlags = ChunkHeader.FLAG_FILE_FRAMED | writerFlags | (continuation ? ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV : 0);
        packetCount = 0;
        committedEnd = chunkOffset + ChunkHeader.SIZE;
        chunkHasMarker = false;
        abi.writeChunkHeader(chunkOffset, chunkId, writerId, ChunkHeader.packetsWord(0, chunkFlags));
    }

    /** Release store of the current chunk's packet count and flags: see the class comment. */
    final void publish() {
        abi.publishPackets(chunkOffset,
                ChunkHeader.writerAndPackets(writerId, ChunkHeader.packetsWord(packetCount, chunkFlags)));
    }

    /** Hands the current chunk, if any, to the commit thread. */
    final void releaseChunk() {
        if (chunkHandle == NO_CHUNK) {
            return;
        }
        int handle = chunkHandle;
        chunkHandle = NO_CHUNK;
        publish();
        release(handle, chunkHasMarker ? -1 : committedEnd - (chunkOffset + ChunkHeader.SIZE));
    }

    /**
     * Hands the chunk to the commit thread with what spares the service a walk over its frames: where
     * its whole packets end ({@code payloadEnd}, from the payload's start; -1 when a drop marker after a
     * packet, or a packet that continues on the next chunk, is among them) and the sequence id in their
     * slots.
     */
    final void release(int handle, int payloadEnd) {
        int page = ChunkArbiter.pageOf(handle);
        int index = ChunkArbiter.indexOf(handle);
        // The CAS to COMPLETE publishes every byte written into the chunk (see SharedMemoryAbi).
        abi.releaseChunkAsComplete(page, index);
        if (ChunkArbiter.layoutOf(handle) == PageLayout.DIV1) {
            // Only freeChunk's large path takes a whole page (the small one asks for the default layout,
            // never a whole page), and it holds a place for it.
            arbiter.pageChunkReleased();
        }
        arbiter.committer().chunkReleased(writerId, page, index, targetBuffer, payloadEnd, proposedSequenceId);
    }
}
