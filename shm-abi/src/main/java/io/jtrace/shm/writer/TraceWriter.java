package io.jtrace.shm.writer;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.SpaceProvider;
import io.jtrace.shm.proto.WireFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Writes a sequence of {@code TracePacket}s into SMB chunks it owns. One per writing thread; not
 * thread-safe. Usage: {@code ProtoWriter p = w.beginPacket(); p.varint(8, ts); ...; w.endPacket();}
 *
 * <h2>Chunks and fragments</h2>
 * Each chunk holds fragments framed as [0x0A][size][bytes], the size a 4-byte redundant varint (1 byte
 * for a {@link #tryReserve reserved} packet, whose size is known before it is framed), and every packet
 * ends with a trusted_packet_sequence_id slot for the service to stamp: the chunk is
 * {@link ChunkHeader#FLAG_FILE_FRAMED file-framed}, so the service copies runs of whole packets into a
 * trace file as they are. This departs from Perfetto's [size][bytes] frames (DESIGN.md §3). A packet that does not fit in the rest of
 * the chunk is split: the fragment written so far is closed (flag "last packet continues on next
 * chunk"), the chunk is released to the commit thread, and the packet continues as the first fragment
 * of a new chunk (flag "first packet continues from previous chunk"). Packets of any size up to
 * 2^28 − 1 bytes thus pass through chunks of a few KiB. A nested message whose size field was left in a
 * released chunk gets its size later as a patch; that chunk carries "needs patching" until the service
 * has received its last patch.
 *
 * <h2>Publication</h2>
 * Each finished fragment is counted in the chunk header, so the service may read a chunk still being
 * written up to its last counted fragment; the orderings are {@link WriterChunk}'s.
 *
 * <h2>SMB full</h2>
 * When no chunk is free the {@link SmbFullPolicy} decides: drop at once, or stall with bounded back-off
 * first. A dropped packet is written to private scratch memory and thrown away; the next chunk the
 * writer gets starts with a drop marker (a fragment of size 0x0FFFFFFF), so the service marks the next
 * packet {@code previous_packet_dropped}. {@link #droppedPackets()} counts the losses.
 */
public final class TraceWriter extends WriterChunk implements SpaceProvider, AutoCloseable {
    /** Longest a {@link SmbFullPolicy#STALL_THEN_DROP} writer waits for a free chunk. */
    public static final long STALL_LIMIT_NANOS = 100_000_000L;
    /** A packet does not start in fewer bytes than this at the end of a chunk. */
    private static final int SMALL_TAIL = 64;
    /** The tag and a 4-byte size: the frame of a packet whose size is known only at its end. */
    private static final int FRAME_HEADER = 1 + WireFormat.RESERVED_SIZE_BYTES;
    /** The tag and a 1-byte size: the frame of a reserved packet of fewer than 128 bytes. */
    private static final int SHORT_FRAME_HEADER = 2;
    private static final byte[] FRAME_TAG = {WireFormat.TRACE_PACKET_TAG};

    private final SmbFullPolicy policy;
    private final ProtoWriter proto = new ProtoWriter(this);
    /** The slot ending each packet, holding {@link #proposedSequenceId}. */
    private final int slot;
    private final byte[] slotBytes;

    /** Frame header of the packet {@link #tryReserve} made room for: {@link #SHORT_FRAME_HEADER} or {@link #FRAME_HEADER}. */
    private int reservedHeader;

    private final LeftBehindSizes leftBehind;

    private boolean inPacket;
    /** The current packet is being written to {@link #scratch} and will be dropped at its end. */
    private boolean discarding;
    /** Packets were lost since the last chunk: the next chunk starts with a drop marker. */
    private boolean dropPending;
    /** A nested message of the open packet outgrew what a size field holds (2^28 − 1): drop it at its end. */
    private boolean oversized;
    private ByteBuffer scratch;
    /** Packets dropped, and of those the descriptive ones: counted here, read by any thread. */
    private final DropCount drops = new DropCount();
    private long packetsWritten;
    /**
     * Moves whenever a reader may lack what this writer wrote before: at every drop, and, for a writer
     * whose chunks a ring may overwrite one by one ({@link #restartEachChunk}), at every chunk it takes.
     * A sequence with incremental state compares it with its value at its last restart.
     */
    private long restartEpoch;
    private boolean restartEachChunk;

    public TraceWriter(ChunkArbiter arbiter, int targetBuffer) {
        this(arbiter, targetBuffer, SmbFullPolicy.DROP);
    }

    public TraceWriter(ChunkArbiter arbiter, int targetBuffer, SmbFullPolicy policy) {
        this(arbiter, targetBuffer, policy, 0);
    }

    /** Starts chunk ids at {@code firstChunkId}, so tests can cross the 2^32 wrap without 4 billion chunks. */
    TraceWriter(ChunkArbiter arbiter, int targetBuffer, SmbFullPolicy policy, int firstChunkId) {
        super(arbiter, targetBuffer, firstChunkId);
        this.policy = policy;
        this.leftBehind = new LeftBehindSizes(writerId, arbiter.committer());
        this.slot = WireFormat.sequenceIdSlot(proposedSequenceId);
        this.slotBytes = new byte[] {(byte) slot, (byte) (slot >>> 8), (byte) (slot >>> 16)};
    }

    public int writerId() {
        return writerId;
    }

    public int targetBuffer() {
        return targetBuffer;
    }

    /** The sequence id this writer writes into its packets' slots (0: none, the service stamps them). */
    public int proposedSequenceId() {
        return proposedSequenceId;
    }

    /** Owner thread: packets this writer had to drop because the SMB was full. */
    public long droppedPackets() {
        return drops.all();
    }

    /**
     * Owner thread: the packets begun from now on describe (sequence headers, track descriptors) rather
     * than record what the caller counts (its events), until called with false. Their drops are counted
     * apart, so {@link #droppedRecords} leaves them out.
     */
    public void describing(boolean on) {
        drops.describing(on);
    }

    /**
     * Any thread: packets dropped while not {@link #describing}, i.e. the caller's records. From another
     * thread a figure that may trail the writer, and may for a moment miss a drop, but never counts a
     * descriptive packet (see {@link DropCount}).
     */
    public long droppedRecords() {
        return drops.droppedRecords();
    }

    /** See {@link #restartEpoch}: moves at every drop and, if {@link #restartEachChunk}, at every new chunk. */
    public long restartEpoch() {
        return restartEpoch;
    }

    /**
     * The writer's chunks go to a buffer that overwrites its oldest chunks before anyone reads them (a
     * ring not streamed into a file): any chunk may be the first one a reader gets of this sequence, so
     * {@link #restartEpoch} moves at each, and a sequence with incremental state writes it again at the
     * start of each chunk. Owner thread, before the first packet.
     */
    public void restartEachChunk(boolean on) {
        restartEachChunk = on;
    }

    /**
     * Every packet this writer writes needs its sequence's incremental state unless it clears it: its
     * chunks say so ({@link ChunkHeader#FLAG_NEEDS_INCREMENTAL_STATE}), so its packets need not. Only for
     * a sequence that clears its state in its first packet and again after every loss it knows of (the
     * service passes none of its packets on after a loss until one clears it). Owner thread, before the
     * first packet.
     */
    public void packetsNeedIncrementalState() {
        if (chunkHandle != NO_CHUNK) {
            throw new IllegalStateException("a writer's packets need incremental state from its first packet on");
        }
        writerFlags = ChunkHeader.FLAG_NEEDS_INCREMENTAL_STATE;
    }

    /** Whether its chunks say that its packets need incremental state ({@link #packetsNeedIncrementalState}). */
    public boolean chunksSayPacketsNeedIncrementalState() {
        return writerFlags != 0;
    }

    public long packetsWritten() {
        return packetsWritten;
    }

    /** Whether a packet is open (begun and neither ended nor aborted). */
    public boolean inPacket() {
        return inPacket;
    }

    /**
     * Drops the next packet before it is written, when writing it could only end in a drop: this writer
     * has no chunk, its policy is to drop when the SMB is full, and the SMB is known to be full. The drop
     * is counted and marked like any other. Returns false, dropping nothing, otherwise. Lets a caller
     * skip encoding a packet (and its incremental-state header) into the scratch buffer, so an event
     * costs about the same whether or not the SMB is full.
     */
    public boolean dropIfSmbFull() {
        if (inPacket || chunkHandle != NO_CHUNK || policy != SmbFullPolicy.DROP || !arbiter.knownFull()) {
            return false;
        }
        recordDrop();
        return true;
    }

    /** Starts a packet and returns the writer for its fields. Close it with {@link #endPacket()}. */
    public ProtoWriter beginPacket() {
        if (inPacket) {
            throw new IllegalStateException("beginPacket() while the previous packet is still open");
        }
        inPacket = true;
        if (chunkHandle == NO_CHUNK || packetCount == ChunkHeader.MAX_PACKETS
                || chunkEnd - proto.position() < SMALL_TAIL) {
            // Also when the chunk's tail is too small to be worth a fragment: a small packet would be
            // split for a few bytes' gain.
            boolean filled = chunkHandle != NO_CHUNK;
            releaseChunk();
            if (!acquireChunk(false, filled, policy == SmbFullPolicy.STALL_THEN_DROP)) {
                enterDiscard(FRAME_HEADER);
            }
        }
        proto.raw(FRAME_TAG, 0, 1);
        proto.beginFrame();
        return proto;
    }

    /** Finishes the packet: writes its (last fragment's) size and publishes it to readers of the chunk. */
    public void endPacket() {
        if (!inPacket) {
            throw new IllegalStateException("endPacket() without beginPacket()");
        }
        if (proto.depth() != 1) {
            throw new IllegalStateException(proto.depth() - 1 + " nested message(s) still open at endPacket()");
        }
        if (oversized) {
            abortPacket();
            return;
        }
        proto.raw(slotBytes, 0, WireFormat.SEQUENCE_ID_SLOT_BYTES);
        proto.endNested();
        inPacket = false;
        if (discarding) {
            discarding = false;
            recordDrop();
            return;
        }
        packetCount++;
        packetsWritten++;
        committedEnd = proto.position();
        publish();
    }

    /**
     * Gives up the open packet (after its writing code failed half-way): it is counted as dropped, and a
     * drop marker takes its place so the sequence stays well-formed and the loss is reported.
     */
    public void abortPacket() {
        if (!inPacket) {
            return;
        }
        inPacket = false;
        oversized = false;
        abandonPatches();
        boolean wasDiscarding = discarding;
        discarding = false;
        recordDrop();
        if (!wasDiscarding && chunkHandle != NO_CHUNK && proto.depth() > 0) {
            int frame = proto.sizeFieldOffset(0) - FRAME_TAG.length;
            if (packetCount == 0) {
                // The abandoned fragment was the continuation promised by the previous chunk; the marker
                // written instead is not one.
                chunkFlags &= ~ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV;
            }
            proto.reset(smb, frame, chunkEnd);
            writeDropMarker();
        }
    }

    /**
     * Fast path for small packets: if a whole packet of up to {@code maxSize} bytes fits in the current
     * chunk, or in a fresh one when the current one is done (the same test as {@link #beginPacket}: no
     * chunk, no packet count left, a tail too small to be worth a fragment), returns the offset in
     * {@link #buffer()} where its bytes go; the caller writes them there and calls {@link #commitReserved}.
     * Returns -1 otherwise (no free chunk, or a packet that needs fragments): use {@link #beginPacket()}.
     * The bytes after the packet's end up to {@code maxSize} may be written too: they are overwritten or
     * never read.
     */
    public int tryReserve(int maxSize) {
        if (inPacket) {
            return -1;
        }
        if (chunkHandle == NO_CHUNK || packetCount == ChunkHeader.MAX_PACKETS
                || chunkEnd - proto.position() < SMALL_TAIL) {
            // Hands the chunk over and takes the next without leaving the fast path. A full SMB costs one
            // epoch compare here (ChunkArbiter.acquireChunk); the caller's slow path stalls, if its policy
            // says so, or counts the drop.
            boolean filled = chunkHandle != NO_CHUNK;
            releaseChunk();
            if (!acquireChunk(false, filled, false)) {
                return -1;
            }
        }
        int frame = proto.position();
        int header = maxSize + WireFormat.SEQUENCE_ID_SLOT_BYTES < 0x80 ? SHORT_FRAME_HEADER : FRAME_HEADER;
        // One byte more than the packet takes: commitReserved writes its slot with a 4-byte store.
        if (chunkEnd - frame < header + maxSize + WireFormat.SEQUENCE_ID_SLOT_BYTES + 1) {
            return -1;
        }
        reservedHeader = header;
        return frame + header;
    }

    /**
     * Completes the packet of {@code size} bytes written at the offset {@link #tryReserve} returned: ends
     * it with its sequence id slot, frames it and publishes it.
     */
    public void commitReserved(int size) {
        int frame = proto.position();
        int body = frame + reservedHeader;
        int length = size + WireFormat.SEQUENCE_ID_SLOT_BYTES;
        // One 4-byte store writes the slot and a 0 after it, in the room tryReserve checked: that byte is
        // not part of any published frame (the next frame, if any, overwrites it).
        smb.putInt(body + size, slot);
        if (reservedHeader == SHORT_FRAME_HEADER) {
            smb.putShort(frame, (short) (WireFormat.TRACE_PACKET_TAG | length << 8));
        } else {
            smb.put(frame, (byte) WireFormat.TRACE_PACKET_TAG);
            smb.putInt(frame + 1, WireFormat.redundantVarint(length));
        }
        proto.skipTo(body + length);
        committedEnd = body + length;
        packetCount++;
        packetsWritten++;
        publish();
    }

    /** The SMB memory the reserved fast path writes into (little-endian). */
    public ByteBuffer buffer() {
        return smb;
    }

    /** Hands the current chunk to the commit thread now instead of when it fills up. */
    public void flush() {
        if (inPacket) {
            throw new IllegalStateException("flush() inside a packet");
        }
        releaseChunk();
    }

    /**
     * Flushes and retires the writer: the service closes its sequence after the last chunk, and the
     * writer id is reused only after that (see {@link ChunkCommitter#retireWriter}). The writer must not
     * be used afterwards.
     */
    @Override
    public void close() {
        if (inPacket) {
            abortPacket();
        }
        if (dropPending && chunkHandle == NO_CHUNK) {
            // A chunk just for the drop marker (acquireChunk writes it): the service counts the loss
            // even though no packet of this sequence follows to carry previous_packet_dropped.
            acquireChunk(false);
        }
        flush();
        arbiter.retireWriter(writerId);
    }

    @Override
    public void makeRoom(ProtoWriter writer, int needed) {
        if (discarding) {
            growScratch(needed);
            writer.discardInto(scratch);
            return;
        }
        if (writer.depth() == 0) {
            // Nothing of the packet is written yet: simply start it in a fresh chunk.
            releaseChunk();
            if (!acquireChunk(false)) {
                enterDiscard(needed);
            }
            return;
        }
        continueInNewChunk(writer, needed);
    }

    /** Ends the packet's fragment in this chunk and continues it in a new one. */
    private void continueInNewChunk(ProtoWriter writer, int needed) {
        int oldHandle = chunkHandle;
        int oldOffset = chunkOffset;
        int oldId = chunkId;
        int oldCount = packetCount + 1; // the fragment ending here counts as one of the chunk's packets
        int oldFlags = chunkFlags | ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT;
        if (!acquireChunk(true)) {
            // SMB full: the unfinished fragment is not counted, so the chunk keeps only whole packets
            // (and the earlier fragments of this packet are dropped by the reader when no continuation
            // follows).
            abandonPatches();
            releaseChunk();
            enterDiscard(needed);
            return;
        }
        // Size fields of open messages that stay behind in the old chunk become patches.
        if (leftBehind.leave(writer, oldId, oldOffset + ChunkHeader.SIZE)) {
            oldFlags |= ChunkHeader.FLAG_NEEDS_PATCHING;
        }
        // Closes the old fragment's frame (in the old chunk, which we still own) and opens the new one.
        smb.put(chunkOffset + ChunkHeader.SIZE, (byte) WireFormat.TRACE_PACKET_TAG);
        writer.continueIn(smb, chunkOffset + ChunkHeader.SIZE + FRAME_TAG.length, chunkEnd);
        abi.publishPackets(oldOffset,
                ChunkHeader.writerAndPackets(writerId, ChunkHeader.packetsWord(oldCount, oldFlags)));
        release(oldHandle, -1);
    }

    @Override
    public void patchSize(ProtoWriter writer, int level, int size) {
        if (size > WireFormat.MAX_RESERVED_SIZE) {
            // A 4-byte size field cannot hold it: the packet is dropped at its end; the chunk still gets
            // its patch so it does not wait forever.
            oversized = true;
            size = 0;
        }
        leftBehind.send(level, size);
    }

    /** The open packet is lost: see {@link LeftBehindSizes#abandon}. A discarded one left nothing behind. */
    private void abandonPatches() {
        if (!discarding) {
            leftBehind.abandon(proto);
        }
    }

    /**
     * Takes a new chunk as the current one, stalling first if the policy says so. A continuation chunk
     * starts flagged as continuing; any other starts with a drop marker if packets were lost. On
     * failure nothing changes and false is returned.
     */
    private boolean acquireChunk(boolean continuation) {
        return acquireChunk(continuation, continuation, policy == SmbFullPolicy.STALL_THEN_DROP);
    }

    /** {@code large}: see {@link #freeChunk}. */
    private boolean acquireChunk(boolean continuation, boolean large, boolean stall) {
        int handle = freeChunk(large, stall, STALL_LIMIT_NANOS);
        if (handle < 0) {
            return false;
        }
        take(handle, continuation);
        if (restartEachChunk) {
            restartEpoch++;
        }
        if (!continuation) {
            proto.reset(smb, chunkOffset + ChunkHeader.SIZE, chunkEnd);
            if (dropPending) {
                writeDropMarker();
            }
        }
        return true;
    }

    /** A fragment of size 0x0FFFFFFF and no bytes: tells the service that packets were lost here. */
    private void writeDropMarker() {
        int pos = proto.position();
        smb.put(pos, (byte) WireFormat.TRACE_PACKET_TAG);
        smb.putInt(pos + 1, WireFormat.redundantVarint(WireFormat.DROPPED_PACKET_SIZE));
        proto.reset(smb, pos + FRAME_HEADER, chunkEnd);
        // A marker that leads its chunk keeps the chunk's read-out hint: the service (and a promotion)
        // take it for what it is and still know where the whole packets end. One after a packet does not.
        chunkHasMarker |= packetCount > 0;
        committedEnd = pos + FRAME_HEADER;
        packetCount++;
        dropPending = false;
        publish();
    }

    private void recordDrop() {
        drops.count();
        restartEpoch++;
        dropPending = true;
    }

    /** Sends the rest of the current packet to the scratch buffer, with room for the next {@code needed} bytes. */
    private void enterDiscard(int needed) {
        discarding = true;
        growScratch(needed);
        proto.discardInto(scratch);
    }

    /** Scratch space for dropped packets: allocated on the first drop only, grown for huge fields. */
    private void growScratch(int needed) {
        int capacity = needed + FRAME_HEADER;
        if (scratch == null || scratch.capacity() < capacity) {
            scratch = ByteBuffer.allocate(Math.max(capacity, 4096)).order(ByteOrder.LITTLE_ENDIAN);
        }
    }
}
