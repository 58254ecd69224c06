package io.jtrace.service.buffer;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.InProcessSmb;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.ChunkPromoter;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/**
 * A {@link Promotion} for the jcstress tests: a one-page SMB holding one COMPLETE chunk of a writer
 * (one file-framed packet, chunk id 0), a promotion granted for that chunk, and a file in memory. Lives
 * in the promotion's package to reach its service-side methods.
 */
public final class PromotionRig {
    private static final int SEQUENCE_ID = 5000;
    private static final int TARGET_BUFFER = 1;
    private final SharedMemoryAbi abi = InProcessSmb.abi(1);
    private final InMemoryFile file = new InMemoryFile();
    private final Promotion promotion;
    private final int payloadEnd;

    public PromotionRig() {
        abi.tryPartitionPage(0, PageLayout.DIV1);
        abi.tryAcquireChunkForWriting(0, PageLayout.DIV1);
        int offset = abi.chunkOffset(0, PageLayout.DIV1, 0);
        int slot = WireFormat.sequenceIdSlot(SEQUENCE_ID);
        // One packet, timestamp = 1, then its sequence id slot: framed as a trace file frames it.
        byte[] frame = {(byte) WireFormat.TRACE_PACKET_TAG, 5, 0x40, 0x01, (byte) slot, (byte) (slot >>> 8), (byte) (slot >>> 16)};
        abi.smb().buffer().put(offset + ChunkHeader.SIZE, frame);
        abi.writeChunkHeader(offset, 0, 1, ChunkHeader.packetsWord(1, ChunkHeader.FLAG_FILE_FRAMED));
        abi.releaseChunkAsComplete(0, 0);
        payloadEnd = frame.length;
        promotion = new Promotion(SEQUENCE_ID, 0, TARGET_BUFFER,
                new PromotionTarget(TARGET_BUFFER, abi, file, 1, 2, Long.MAX_VALUE));
    }

    /** The writer: releases its chunk to the promotion; true if it appended it. */
    public boolean writerReleasesItsChunk() {
        return promotion.tryAppend(0, 0, TARGET_BUFFER, payloadEnd, SEQUENCE_ID) == ChunkPromoter.PROMOTED;
    }

    /** The service: takes the promotion back unless the writer is appending; true if it did. */
    public boolean serviceRevokes() {
        return promotion.revoke();
    }

    /** The service: holds the promotion for the writer's chunk 0, as when the writer queued it; true if held. */
    public boolean serviceHoldsForTheChunk() {
        return promotion.hold(0);
    }

    /** Whether the file holds the chunk's packet (the only thing that can be appended). */
    public boolean fileHoldsThePacket() {
        return file.bytes() > 0;
    }

    public boolean chunkIsFree() {
        return abi.chunkState(0, 0) == ChunkState.FREE;
    }

    /** The promotion's chunks settled into a buffer's counters: how many the buffer counts as written. */
    public long settledChunks() {
        BufferCounters counters = new BufferCounters();
        promotion.settle(new TraceBuffer(64 * 1024, TraceBuffer.Policy.RING), counters, 1, 1);
        return counters.chunksPromoted;
    }

    /** A file that only this rig's one writer appends to. */
    private static final class InMemoryFile implements FileAppender {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private byte[] pending = new byte[0];
        private volatile long committed;

        @Override
        public long tryReserve(int length) {
            pending = new byte[length];
            return 0;
        }

        @Override
        public void put(long reservation, int at, ByteBuffer src, int offset, int length) {
            src.get(offset, pending, at, length);
        }

        @Override
        public void put(long reservation, int at, byte[] src, int offset, int length) {
            System.arraycopy(src, offset, pending, at, length);
        }

        @Override
        public void commit(long reservation, int length, int packets) {
            out.write(pending, 0, length);
            committed += length;
        }

        @Override
        public long bytes() {
            return committed;
        }

        @Override
        public long reserveDirect(int length) {
            return -1;
        }

        @Override
        public void writeDirect(long reservation, byte[] src, int length) {
            throw new AssertionError("never reserved");
        }

        @Override
        public void endDirect(long reservation, int packets) {
            throw new AssertionError("never reserved");
        }

        @Override
        public boolean makeRoom() {
            return false;
        }
    }
}
