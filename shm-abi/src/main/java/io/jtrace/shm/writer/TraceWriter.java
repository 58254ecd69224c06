package io.jtrace.shm.writer;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.SpaceProvider;
import io.jtrace.shm.proto.WireFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Writes a sequence of {@code TracePacket}s into SMB chunks it owns. One per writing thread; not
 * thread-safe. Packets are framed as [4-byte size][packet bytes]; each finished packet is published to
 * readers by a release store of the chunk's packet count, so the service may read a chunk still being
 * written up to its last counted packet.
 *
 * <p>A packet that does not fit in the rest of the chunk moves, with the bytes written so far, to a
 * fresh chunk, and the old chunk is released to the commit thread. A packet that fits in no chunk, or
 * that finds the SMB full, is written into a private scratch buffer and dropped; {@link #droppedPackets()}
 * counts those.
 *
 * <p>Usage: {@code ProtoWriter p = w.beginPacket(); p.varint(8, ts); ...; w.endPacket();}
 */
public final class TraceWriter implements SpaceProvider, AutoCloseable {
    private static final int NO_CHUNK = -1;

    private final ChunkArbiter arbiter;
    private final SharedMemoryAbi abi;
    private final ByteBuffer smb;
    private final int writerId;
    private final int targetBuffer;
    private final ProtoWriter proto = new ProtoWriter(this);

    private int chunkHandle = NO_CHUNK;
    private int chunkOffset;
    private int chunkEnd;
    private int nextChunkId;
    private int packetCount;
    private boolean inPacket;
    /** The current packet is being written to {@link #scratch} and will be dropped at its end. */
    private boolean discarding;
    private ByteBuffer scratch;
    /** Where writing resumes in the current chunk after a dropped packet. */
    private int resumePosition;
    private long droppedPackets;
    private long packetsWritten;

    public TraceWriter(ChunkArbiter arbiter, int targetBuffer) {
        int id = arbiter.allocateWriterId();
        if (id < 0) {
            throw new IllegalStateException("all " + ChunkHeader.MAX_WRITER_ID + " writer ids are in use");
        }
        this.arbiter = arbiter;
        this.abi = arbiter.abi();
        this.smb = abi.smb().buffer();
        this.writerId = id;
        this.targetBuffer = targetBuffer;
    }

    public int writerId() {
        return writerId;
    }

    public int targetBuffer() {
        return targetBuffer;
    }

    /** Packets this writer had to drop (SMB full or larger than any chunk). */
    public long droppedPackets() {
        return droppedPackets;
    }

    public long packetsWritten() {
        return packetsWritten;
    }

    /** Starts a packet and returns the writer for its fields. Close it with {@link #endPacket()}. */
    public ProtoWriter beginPacket() {
        if (inPacket) {
            throw new IllegalStateException("beginPacket() while the previous packet is still open");
        }
        inPacket = true;
        if (chunkHandle == NO_CHUNK || packetCount == ChunkHeader.MAX_PACKETS) {
            releaseChunk();
            if (acquireChunk(ChunkHeader.SIZE + WireFormat.RESERVED_SIZE_BYTES)) {
                proto.reset(smb, chunkOffset + ChunkHeader.SIZE, chunkEnd);
            } else {
                enterDiscard(WireFormat.RESERVED_SIZE_BYTES);
            }
        }
        proto.beginFrame();
        return proto;
    }

    /** Finishes the packet: writes its size and publishes it to readers of the chunk. */
    public void endPacket() {
        if (!inPacket) {
            throw new IllegalStateException("endPacket() without beginPacket()");
        }
        if (proto.depth() != 1) {
            throw new IllegalStateException(proto.depth() - 1 + " nested message(s) still open at endPacket()");
        }
        proto.endNested();
        inPacket = false;
        if (discarding) {
            discarding = false;
            droppedPackets++;
            if (chunkHandle != NO_CHUNK) {
                proto.reset(smb, resumePosition, chunkEnd);
            }
            return;
        }
        packetCount++;
        packetsWritten++;
        abi.publishPackets(chunkOffset, ChunkHeader.writerAndPackets(writerId, ChunkHeader.packetsWord(packetCount, 0)));
    }

    /**
     * Gives up the open packet (after its writing code failed half-way): it is counted as dropped and
     * the next packet starts where it began, so the chunk stays well-formed.
     */
    public void abortPacket() {
        if (!inPacket) {
            return;
        }
        inPacket = false;
        droppedPackets++;
        if (discarding) {
            discarding = false;
            if (chunkHandle != NO_CHUNK) {
                proto.reset(smb, resumePosition, chunkEnd);
            }
        } else if (chunkHandle != NO_CHUNK && proto.depth() > 0) {
            proto.reset(smb, proto.sizeFieldOffset(0), chunkEnd);
        }
    }

    /** Hands the current chunk to the commit thread now instead of when it fills up. */
    public void flush() {
        if (inPacket) {
            throw new IllegalStateException("flush() inside a packet");
        }
        releaseChunk();
    }

    /** Flushes and gives the writer id back. The writer must not be used afterwards. */
    @Override
    public void close() {
        flush();
        arbiter.freeWriterId(writerId);
    }

    @Override
    public void makeRoom(ProtoWriter writer, int needed) {
        if (discarding) {
            growScratch(needed);
            writer.discardInto(scratch);
            return;
        }
        // Before the packet's frame is opened (depth 0) nothing of it is written yet.
        int packetStart = writer.depth() > 0 ? writer.sizeFieldOffset(0) : writer.position();
        int partial = writer.position() - packetStart;
        int required = ChunkHeader.SIZE + partial + needed;
        if (required > arbiter.maxChunkSize()) {
            // Keep the chunk: the packets after this one continue where this one started.
            resumePosition = packetStart;
            enterDiscard(needed);
            return;
        }
        // Take the new chunk before giving up the old one: the unfinished packet's bytes must be copied
        // out of the old chunk while we still own it. Once released, the service may free it and another
        // writer may overwrite it.
        int oldHandle = chunkHandle;
        if (!acquireChunk(required)) {
            // SMB full: the packets already in the old chunk still go out; this one is dropped.
            releaseChunk();
            enterDiscard(needed);
            return;
        }
        int newStart = chunkOffset + ChunkHeader.SIZE;
        smb.put(newStart, smb, packetStart, partial);
        writer.moveTo(smb, packetStart, newStart, chunkEnd);
        // The unfinished packet is not counted in the old chunk, so releasing it publishes only the
        // packets before it.
        release(oldHandle);
    }

    /** Takes a new chunk as the current one; on failure (SMB full) changes nothing and returns false. */
    private boolean acquireChunk(int minBytes) {
        int handle = arbiter.acquireChunk(minBytes);
        if (handle < 0) {
            return false;
        }
        PageLayout layout = ChunkArbiter.layoutOf(handle);
        int page = ChunkArbiter.pageOf(handle);
        chunkHandle = handle;
        chunkOffset = abi.chunkOffset(page, layout, ChunkArbiter.indexOf(handle));
        chunkEnd = chunkOffset + layout.chunkSize(abi.pageSize());
        packetCount = 0;
        abi.writeChunkHeader(chunkOffset, nextChunkId++, writerId, ChunkHeader.packetsWord(0, 0));
        return true;
    }

    private void releaseChunk() {
        if (chunkHandle == NO_CHUNK) {
            return;
        }
        int handle = chunkHandle;
        chunkHandle = NO_CHUNK;
        release(handle);
    }

    private void release(int handle) {
        int page = ChunkArbiter.pageOf(handle);
        int index = ChunkArbiter.indexOf(handle);
        // The CAS to COMPLETE publishes every byte written into the chunk (see SharedMemoryAbi).
        abi.releaseChunkAsComplete(page, index);
        arbiter.committer().chunkReleased(page, index, targetBuffer);
    }

    /** Sends the rest of the current packet to the scratch buffer, with room for the next {@code needed} bytes. */
    private void enterDiscard(int needed) {
        discarding = true;
        growScratch(needed);
        proto.discardInto(scratch);
    }

    /** Scratch space for dropped packets: allocated on the first drop only, grown for huge fields. */
    private void growScratch(int needed) {
        int capacity = needed + WireFormat.RESERVED_SIZE_BYTES;
        if (scratch == null || scratch.capacity() < capacity) {
            scratch = ByteBuffer.allocate(Math.max(capacity, 4096)).order(ByteOrder.LITTLE_ENDIAN);
        }
    }
}
