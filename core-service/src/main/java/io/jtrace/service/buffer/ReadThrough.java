package io.jtrace.service.buffer;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.WireFormat;

/**
 * A trusted writer's complete chunk read straight from the SMB into a streaming session's file,
 * without being stored in the ring, when nothing of its sequence waits there: its packets then cross
 * memory twice (into a small array this thread keeps in its cache, then into the file's buffer) instead
 * of four times (into the ring, whose write position is cold, and out of it), and the ring keeps no
 * record of them. The chunk must be next in its sequence and carry its writer's hints (whole,
 * file-framed packets, no drop marker but a leading one, nothing continued from or onto another chunk,
 * no patch due); the
 * sequence must hold no chunk, fragment, partial read or known loss in the buffer. Anything else is
 * stored and read out as before, so the ring's rules (order, gaps, losses, patches) stay in one place.
 * A chunk read through counts as written and read. Service thread only, like its buffer.
 */
final class ReadThrough {
    /** Chunk flags that keep a chunk out: its packets need the ring's bookkeeping. */
    private static final int NEEDS_THE_RING = ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV
            | ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT | ChunkHeader.FLAG_NEEDS_PATCHING;

    private final TraceBuffer buffer;
    private final BufferCounters counters;
    private final SequenceReadOut readOut;
    /** The copy of the chunk being read, and its record (never in the ring). */
    private byte[] copy = new byte[0];
    private final ChunkRecord record = new ChunkRecord();

    ReadThrough(TraceBuffer buffer, BufferCounters counters, SequenceReadOut readOut) {
        this.buffer = buffer;
        this.counters = counters;
        this.readOut = readOut;
    }

    /** See {@link TraceBuffer#readThrough}. */
    boolean read(int producerId, SharedMemoryAbi abi, int page, PageLayout layout, int index, int payloadEnd,
                 int stampedSequenceId, SequenceIdentity identity, PacketSink file) {
        if (payloadEnd < 0 || stampedSequenceId <= 0) {
            // No writer hints: another process's producer, or a chunk with a marker after a packet or a
            // continued packet.
            return false;
        }
        int offset = abi.chunkOffset(page, layout, index);
        int writerAndPackets = abi.readWriterAndPackets(offset);
        int writerId = ChunkHeader.writerId(writerAndPackets);
        int packetsWord = ChunkHeader.packetsWordOf(writerAndPackets);
        int flags = ChunkHeader.flags(packetsWord);
        int payloadBytes = layout.chunkSize(abi.pageSize()) - ChunkHeader.SIZE;
        if (payloadEnd > payloadBytes || writerId <= 0
                || writerId > ChunkHeader.MAX_WRITER_ID || (flags & ChunkHeader.FLAG_FILE_FRAMED) == 0
                || (flags & NEEDS_THE_RING) != 0 || !identity.trusted(producerId)) {
            return false;
        }
        SequenceState seq = buffer.sequence(producerId, writerId);
        int chunkId = abi.readChunkId(offset);
        long ordinal = TraceBuffer.ordinalOf(seq, chunkId);
        if (!seq.chunks.isEmpty() || (seq.nextOrdinal >= 0 && ordinal != seq.nextOrdinal) || seq.partialOrdinal >= 0
                || seq.pendingFragment != null || seq.lostRunFrom >= 0 || !seq.lostOrdinals.isEmpty()) {
            return false;
        }
        seq.arrived(ordinal, chunkId);
        if (copy.length < payloadEnd) {
            copy = new byte[payloadBytes];
        }
        abi.smb().buffer().get(offset + ChunkHeader.SIZE, copy, 0, payloadEnd);
        record.init(seq, chunkId, ordinal, -1, 0, payloadEnd);
        record.header(packetsWord, true);
        record.payloadEnd = payloadEnd;
        record.stampedSequenceId = stampedSequenceId;
        // Counted as the ring counts a complete chunk, its whole payload, once it is read: a file that
        // fails half-way (the session then stops) leaves a chunk written and not read, as the ring would.
        counters.chunksWritten++;
        counters.bytesWritten += payloadBytes;
        readOut.readNext(copy, record, seq, identity, file);
        counters.bytesRead += payloadBytes;
        counters.chunksReadThrough++;
        return true;
    }

    /**
     * Whether the writer may append the chunks after {@code chunkId} itself: that is its newest chunk, and
     * everything of its sequence is read up to it, with nothing held back (fragment, partial read, loss to report,
     * a wait for incremental state), and its packets' slots carry the sequence's own id.
     */
    boolean promotable(int producerId, int writerId, int chunkId, int stampedSequenceId) {
        SequenceState seq = buffer.existingSequence(producerId, writerId);
        return seq != null && seq.anyChunk && seq.maxChunkId == chunkId && seq.nextOrdinal == seq.maxOrdinal + 1
                && seq.chunks.isEmpty()
                && seq.firstPacketEmitted && !seq.lossPending && !seq.awaitingIncrementalState
                && seq.pendingFragment == null && seq.partialOrdinal < 0 && seq.lostRunFrom < 0
                && seq.lostOrdinals.isEmpty() && stampedSequenceId > 0 && seq.sequenceId == stampedSequenceId
                && stampedSequenceId <= WireFormat.MAX_SLOT_SEQUENCE_ID;
    }
}
