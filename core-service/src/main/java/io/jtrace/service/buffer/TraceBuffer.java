package io.jtrace.service.buffer;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The service's own buffer for one {@code TraceConfig.buffers[]} entry: chunks copied out of producers'
 * SMBs, kept until read, indexed by (producer, writer, chunk id).
 *
 * <h2>Memory</h2>
 * One byte array of the configured size, allocated once, used as a ring: chunks are copied in one
 * after another, straight from the SMB, each contiguous (a chunk that would cross the end starts over
 * at 0, and the skipped tail counts as padding). Overwriting therefore always hits the oldest chunks,
 * and a steady stream of chunks costs only small index objects, never their bytes.
 * {@link Policy#RING} overwrites the oldest unread chunks; {@link Policy#DISCARD} refuses new chunks
 * instead. Either way the sequences that lost data get {@code previous_packet_dropped} on their next
 * packet read.
 *
 * <p>Positions are tracked on a virtual stream that only grows ({@code vstart}); a chunk at
 * {@code vstart} is overwritten once the write position passes {@code vstart + capacity}.
 *
 * <p>Reading is per sequence in chunk-id order (wrap-aware) and removes what it read; where a
 * sequence's read stops is {@link SequenceReadOut}'s decision, and turning each chunk back into packets
 * (fragments glued, trusted fields appended) is {@link ChunkPacketReader}'s job. Only the service
 * thread touches a buffer.
 */
public final class TraceBuffer {
    public enum Policy { RING, DISCARD }

    /** Room for the trusted fields appended to each packet read out (5 tags + varints). */
    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 16;

    // The state below is package-private for DumpCopy, which copies it; nothing else outside reads it.
    final int capacity;
    final Policy policy;
    final byte[] ring;
    final BufferCounters counters = new BufferCounters();
    /** Every chunk still in the ring (read ones included, marked dead) in the order written. */
    final ArrayDeque<ChunkRecord> byAge = new ArrayDeque<>();
    /** Live writers' sequences in the order they first appeared, so the read-out order is stable. */
    final Map<SequenceKey, SequenceState> sequences = new LinkedHashMap<>();
    /**
     * Sequences of writers that retired, with chunks still to read: their writer id may already belong
     * to a new writer, whose chunks start a new sequence in {@link #sequences}. Dropped once empty, so
     * thread churn leaves no growing record.
     */
    final ArrayDeque<SequenceState> retired = new ArrayDeque<>();
    /** Write position on the virtual stream; the ring offset is {@code writeV % capacity}. */
    long writeV;
    /** Bytes of chunks stored and not yet read. */
    long used;
    /** {@link #used} right after the last {@link #readAll}: what could not be read then. */
    long usedAfterLastRead;
    /** Records of chunks that left the ring, for reuse (linked through {@code nextFree}). */
    private ChunkRecord freeRecords;
    private SequenceState lastSequence;
    private final SequenceReadOut readOut = new SequenceReadOut(counters);
    private final ReadThrough readThrough = new ReadThrough(this, counters, readOut);

    public TraceBuffer(long capacityBytes, Policy policy) {
        if (capacityBytes <= 0 || capacityBytes > MAX_CAPACITY) {
            throw new IllegalArgumentException("buffer size must be between 1 byte and 2 GiB, got " + capacityBytes);
        }
        this.capacity = (int) capacityBytes;
        this.policy = policy;
        this.ring = new byte[capacity];
    }

    /**
     * A read-only copy of what the buffer holds now, for a dump of a running session: the copy is read
     * out (as if its session had ended) while this buffer goes on storing and is later read as if no
     * dump had happened. Every copied sequence gets its trusted sequence id from {@code identity} now,
     * so the copy can be read on another thread with an identity that knows only pids and uids. Costs
     * one array of {@link #capacity()} bytes while the copy lives.
     */
    public TraceBuffer copy(SequenceIdentity identity) {
        return DumpCopy.of(this, identity);
    }

    /** The producers whose sequences the buffer holds. */
    public Set<Integer> producerIds() {
        Set<Integer> ids = new HashSet<>();
        for (SequenceState seq : retired) {
            ids.add(seq.key.producerId());
        }
        for (SequenceKey key : sequences.keySet()) {
            ids.add(key.producerId());
        }
        return ids;
    }

    public long capacity() {
        return capacity;
    }

    /** Bytes of chunks stored and not yet read. */
    public long used() {
        return used;
    }

    /** Bytes that stayed unread after the last read (sequences waiting for a patch or a gap). */
    public long usedAfterLastRead() {
        return usedAfterLastRead;
    }

    public Policy policy() {
        return policy;
    }

    public BufferCounters counters() {
        return counters;
    }

    /** Counts a chunk that could not be taken from the SMB at all (bad state, bad header). */
    public void recordAbiViolation() {
        counters.abiViolations++;
    }

    /**
     * Stores chunk {@code index} of {@code page}, laid out as {@code layout}, straight out of a
     * producer's SMB. The caller owns the chunk: its CAS COMPLETE → BEING_READ made every byte the
     * writer wrote visible, and no one frees or reuses the chunk during the copy. A chunk the service does
     * not own is copied through a {@link io.jtrace.shm.abi.ChunkSnapshot} instead. {@code payloadEnd}, -1
     * for none, bounds what of a {@code complete} chunk is stored ({@link #storedLength}); with a
     * {@code stampedSequenceId} (0 for none: only a trusted writer's) it is also the read-out hint of
     * {@link ChunkRecord#payloadEnd}. Returns the bytes the chunk took in the ring, or -1 if it was
     * refused.
     */
    public int copyChunk(int producerId, SharedMemoryAbi abi, int page, PageLayout layout, int index,
                         boolean complete, int payloadEnd, int stampedSequenceId) {
        int offset = abi.chunkOffset(page, layout, index);
        int writerAndPackets = abi.readWriterAndPackets(offset);
        int packetsWord = ChunkHeader.packetsWordOf(writerAndPackets);
        ChunkRecord record = store(producerId, ChunkHeader.writerId(writerAndPackets), abi.readChunkId(offset),
                packetsWord, abi.smb().buffer(), offset + ChunkHeader.SIZE,
                layout.chunkSize(abi.pageSize()) - ChunkHeader.SIZE, complete, payloadEnd);
        if (record != null && complete && stampedSequenceId > 0 && payloadEnd <= record.size) {
            record.payloadEnd = payloadEnd;
            record.stampedSequenceId = stampedSequenceId;
        }
        return record != null ? record.size : -1;
    }

    /**
     * A chunk this buffer must not take (its session's file is at its limit and the ring has no room
     * left that nothing unread occupies): counted as discarded, a loss on its sequence.
     */
    public void discardChunk(int producerId, SharedMemoryAbi abi, int page, PageLayout layout, int index) {
        int offset = abi.chunkOffset(page, layout, index);
        int writerId = ChunkHeader.writerId(abi.readWriterAndPackets(offset));
        counters.chunksDiscarded++;
        if (writerId > 0 && writerId <= ChunkHeader.MAX_WRITER_ID) {
            SequenceState seq = sequence(producerId, writerId);
            seq.lost(ordinalOf(seq, abi.readChunkId(offset)));
        }
    }

    /**
     * Of a session that streams into a file: reads a trusted writer's complete chunk straight from the
     * SMB into {@code file}, without storing it, when nothing of its sequence waits here (see
     * {@link ReadThrough}). Returns false, having read nothing, when the chunk must be stored instead
     * ({@link #copyChunk}). The caller owns the chunk, as for {@link #copyChunk}.
     */
    public boolean readThrough(int producerId, SharedMemoryAbi abi, int page, PageLayout layout, int index,
                               int payloadEnd, int stampedSequenceId, SequenceIdentity identity, PacketSink file) {
        return readThrough.read(producerId, abi, page, layout, index, payloadEnd, stampedSequenceId, identity, file);
    }

    /** Whether the writer may append the chunks after {@code chunkId} itself (see {@link ReadThrough#promotable}). */
    public boolean promotable(int producerId, int writerId, int chunkId, int stampedSequenceId) {
        return readThrough.promotable(producerId, writerId, chunkId, stampedSequenceId);
    }

    /**
     * Reads what one writer's sequence has ready (as {@link #readAll} does for all): a chunk stored
     * because it could not be read straight through is read out at once, so the sequence's next chunk
     * can be. Returns the number of packets delivered.
     */
    public long readSequence(int producerId, int writerId, SequenceIdentity identity, PacketSink sink) {
        SequenceState seq = existingSequence(producerId, writerId);
        return seq == null ? 0 : readOut.read(this, ring, seq, identity, sink, false);
    }

    /** A promotion of a writer of this buffer, taken back: its chunks join the sequence and the counts. */
    public void settle(Promotion promotion, int producerId, int writerId) {
        promotion.settle(this, counters, producerId, writerId);
    }

    /** {@link #copyChunk(int, int, int, int, ByteBuffer, int, int, boolean)} from an array. */
    public boolean copyChunk(int producerId, int writerId, int chunkId, int packetsWord, byte[] payload, boolean complete) {
        return copyChunk(producerId, writerId, chunkId, packetsWord, ByteBuffer.wrap(payload), 0, payload.length, complete);
    }

    /**
     * Stores a chunk: {@code length} payload bytes (those after the chunk header) copied from
     * {@code src} at {@code offset}, straight into the ring; of a chunk not {@code complete} (copied
     * while its writer held it), only the bytes its counted packets fill. Returns false when the chunk
     * was refused (malformed header, larger than the buffer, older than what was read, or no room in
     * DISCARD mode).
     */
    public boolean copyChunk(int producerId, int writerId, int chunkId, int packetsWord, ByteBuffer src, int offset,
                             int length, boolean complete) {
        return store(producerId, writerId, chunkId, packetsWord, src, offset, length, complete, -1) != null;
    }

    /** {@link #copyChunk(int, int, int, int, ByteBuffer, int, int, boolean)}: the chunk's record, or null if refused. */
    private ChunkRecord store(int producerId, int writerId, int chunkId, int packetsWord, ByteBuffer src, int offset,
                              int chunkLength, boolean complete, int payloadEnd) {
        int length = storedLength(src, offset, chunkLength, packetsWord, complete, payloadEnd);
        if (writerId <= 0 || writerId > ChunkHeader.MAX_WRITER_ID) {
            counters.abiViolations++;
            return null;
        }
        SequenceState seq = sequence(producerId, writerId);
        long ordinal = ordinalOf(seq, chunkId);
        if (length > capacity) {
            counters.chunksDiscarded++;
            seq.lost(ordinal);
            return null;
        }
        // In-order commits (the common case) are past everything stored: no need to look for a copy.
        ChunkRecord existing = seq.anyChunk && ordinal <= seq.maxOrdinal ? seq.chunks.find(ordinal) : null;
        if (existing != null) {
            // A re-commit of a chunk we hold (e.g. scraped before, now complete): the newer copy wins, in
            // place when it is as long, else stored anew (a scraped copy holds only its packets' bytes).
            counters.chunksRewritten++;
            if (existing.size == length) {
                src.get(offset, ring, existing.offset, length);
                existing.header(packetsWord, complete);
                return existing;
            }
            forget(existing);
        }
        if (seq.nextOrdinal >= 0 && ordinal < seq.nextOrdinal) {
            // Older than what was already read out: it can no longer be delivered in order.
            counters.chunksDiscarded++;
            seq.lossPending = true;
            return null;
        }
        long at = reserve(length);
        if (at < 0) {
            counters.chunksDiscarded++;
            seq.lost(ordinal);
            return null;
        }
        if (seq.anyChunk && ordinal < seq.maxOrdinal) {
            counters.chunksCommittedOutOfOrder++;
        }
        seq.arrived(ordinal, chunkId);
        ChunkRecord record = obtainRecord().init(seq, chunkId, ordinal, at, (int) (at % capacity), length);
        src.get(offset, ring, record.offset, length);
        record.header(packetsWord, complete);
        seq.chunks.add(record);
        byAge.addLast(record);
        used += length;
        if (existing == null && seq.partialOrdinal == ordinal) {
            // A later copy of a chunk read while its writer held it (that copy has left the ring).
            counters.chunksRewritten++;
        } else if (existing == null) {
            counters.chunksWritten++;
        }
        counters.bytesWritten += length;
        return record;
    }

    /**
     * The bytes a chunk takes in the ring: of a {@code complete} chunk, up to where its whole packets end
     * when its writer said so ({@code payloadEnd}, -1 for no hint: the chunk a writer hands over when
     * flushed or closed is often a page with a few packets, which a small ring must not give its whole
     * room to; an untrusted writer's word only bounds what of its own chunk is kept, as its packets are
     * checked at read-out, and the service gives it a floor), else all {@code chunkLength}; of one copied
     * while its writer held it, only what its counted packets fill.
     */
    public static int storedLength(ByteBuffer src, int offset, int chunkLength, int packetsWord, boolean complete,
                                   int payloadEnd) {
        if (!complete) {
            return ChunkUsage.usedBytes(src, offset, chunkLength, packetsWord);
        }
        return payloadEnd >= 0 && payloadEnd <= chunkLength ? payloadEnd : chunkLength;
    }

    /**
     * A writer retired (Perfetto's UnregisterTraceWriter, after its last chunk and patch): its sequence
     * keeps its chunks and its trusted sequence id until read, but a later chunk with the same writer
     * id (a new writer that got the recycled id) starts a new sequence.
     */
    public void retireWriter(SequenceIdentity identity, int producerId, int writerId) {
        SequenceState seq = sequences.remove(new SequenceKey(producerId, writerId));
        if (seq == null) {
            return;
        }
        if (lastSequence == seq) {
            lastSequence = null;
        }
        if (!seq.chunks.isEmpty()) {
            sequenceIdOf(seq, identity);
            retired.addLast(seq);
        }
    }

    /** Sequences with chunks or state still held: live writers' and retired writers' not yet drained. */
    public int sequenceCount() {
        return sequences.size() + retired.size();
    }

    static int sequenceIdOf(SequenceState seq, SequenceIdentity identity) {
        if (seq.sequenceId == 0) {
            seq.sequenceId = identity.sequenceId(seq.key.producerId(), seq.key.writerId());
        }
        return seq.sequenceId;
    }

    /** The writer's sequence, or null if the buffer has none for it. */
    SequenceState existingSequence(int producerId, int writerId) {
        // Consecutive chunks often come from the same writer: skip the map then.
        SequenceState last = lastSequence;
        if (last != null && last.key.producerId() == producerId && last.key.writerId() == writerId) {
            return last;
        }
        return sequences.get(new SequenceKey(producerId, writerId));
    }

    SequenceState sequence(int producerId, int writerId) {
        SequenceState seq = existingSequence(producerId, writerId);
        if (seq == null) {
            seq = new SequenceState(new SequenceKey(producerId, writerId));
            sequences.put(seq.key, seq);
        }
        lastSequence = seq;
        return seq;
    }

    /**
     * Whether storing a chunk of {@code length} bytes now would overwrite a chunk not yet read: a session
     * that streams into a file reads its buffer out first, so the ring never drops what the file could
     * have saved.
     */
    public boolean wouldOverwriteUnread(int length) {
        while (!byAge.isEmpty() && byAge.peekFirst().dead) {
            recycle(byAge.pollFirst());
        }
        return !byAge.isEmpty() && byAge.peekFirst().vstart + capacity < startOfNext(length) + length;
    }

    /** Where a chunk of {@code length} bytes stored now would start on the virtual stream. */
    private long startOfNext(int length) {
        long start = writeV;
        int ringOffset = (int) (start % capacity);
        if (ringOffset + length > capacity) {
            start += capacity - ringOffset; // a chunk never wraps: skip the tail
        }
        return start;
    }

    /**
     * Makes room for {@code length} contiguous bytes at the write position and returns their virtual
     * start, overwriting the oldest chunks in RING mode; -1 when DISCARD mode finds unread chunks there.
     */
    private long reserve(int length) {
        long start = startOfNext(length);
        long end = start + length;
        // A chunk is overwritten when the new bytes reach its position one lap later.
        while (!byAge.isEmpty() && byAge.peekFirst().vstart + capacity < end) {
            ChunkRecord oldest = byAge.peekFirst();
            if (oldest.dead) {
                recycle(byAge.pollFirst());
                continue;
            }
            if (policy == Policy.DISCARD) {
                return -1;
            }
            byAge.pollFirst();
            overwrite(oldest);
            recycle(oldest);
        }
        counters.paddingBytesWritten += start - writeV;
        if (writeV > 0 && start / capacity > (writeV - 1) / capacity) {
            counters.writeWrapCount++;
        }
        writeV = end;
        return start;
    }

    /**
     * A record for a new chunk: a reused one when any has left the ring. A record is reused only once
     * nothing refers to it any more (it left both its sequence's index and the age queue).
     */
    private ChunkRecord obtainRecord() {
        ChunkRecord record = freeRecords;
        if (record == null) {
            return new ChunkRecord();
        }
        freeRecords = record.nextFree;
        return record;
    }

    private void recycle(ChunkRecord record) {
        record.sequence = null;
        record.nextFree = freeRecords;
        freeRecords = record;
    }

    private void overwrite(ChunkRecord victim) {
        SequenceState seq = victim.sequence;
        seq.chunks.remove(victim.ordinal);
        victim.dead = true;
        seq.lost(victim.ordinal);
        used -= victim.size;
        counters.chunksOverwritten++;
        counters.bytesOverwritten += victim.size;
    }

    /** Drops a stored chunk without it counting as lost (it is being replaced). */
    private void forget(ChunkRecord record) {
        record.sequence.chunks.remove(record.ordinal);
        record.dead = true;
        used -= record.size;
    }

    /**
     * Fills a size field left open in a stored chunk. {@code offset} counts from the start of the
     * chunk's payload; {@code value} is the 4 bytes as a little-endian int. When {@code hasMorePatches}
     * is false the chunk no longer needs patching and its sequence can be read past it. Returns false
     * (counting a failed patch) for an unknown chunk or an offset outside it.
     */
    public boolean applyPatch(int producerId, int writerId, int chunkId, int offset, int value, boolean hasMorePatches) {
        ChunkRecord chunk = stored(producerId, writerId, chunkId);
        if (chunk == null || offset < 0 || offset > chunk.size - 4) {
            counters.patchesFailed++;
            return false;
        }
        int at = chunk.offset + offset;
        ring[at] = (byte) value;
        ring[at + 1] = (byte) (value >>> 8);
        ring[at + 2] = (byte) (value >>> 16);
        ring[at + 3] = (byte) (value >>> 24);
        if (!hasMorePatches) {
            chunk.flags &= ~ChunkHeader.FLAG_NEEDS_PATCHING;
        }
        counters.patchesSucceeded++;
        return true;
    }

    /** Whether the chunk is stored and not yet read (a patch for it would apply). */
    public boolean holdsChunk(int producerId, int writerId, int chunkId) {
        return stored(producerId, writerId, chunkId) != null;
    }

    /** A live writer's stored, unread chunk, or null. */
    private ChunkRecord stored(int producerId, int writerId, int chunkId) {
        SequenceState seq = sequences.get(new SequenceKey(producerId, writerId));
        return seq == null || !seq.anyChunk ? null : seq.chunks.find(ordinalOf(seq, chunkId));
    }

    /** Chunk ids increase by one per chunk and wrap at 2^32: place {@code chunkId} relative to the newest seen. */
    static long ordinalOf(SequenceState seq, int chunkId) {
        if (!seq.anyChunk) {
            return Integer.toUnsignedLong(chunkId) + (1L << 32);
        }
        return seq.maxOrdinal + (chunkId - seq.maxChunkId);
    }

    /**
     * Reads stored packets out, sequence by sequence, each with the trusted fields appended, and removes
     * the chunks read. Returns the number of packets delivered.
     *
     * <p>While a session runs ({@code sessionEnded} false) a sequence stops, until a later read, at a
     * chunk that still needs patching, at a chunk copied while its untrusted writer held it (a trusted
     * writer's is read as far as it goes, and on from there later), and at a gap in
     * chunk ids that may yet be filled by an out-of-order commit (a gap known to be lost is skipped and
     * reported). Once the session has ended nothing more can arrive: everything is read, and what is
     * missing or unpatched is reported as lost.
     */
    public long readAll(SequenceIdentity identity, PacketSink sink, boolean sessionEnded) {
        long delivered = 0;
        // Retired sequences first: they are older than any live sequence that reuses their writer id.
        int retiredCount = retired.size();
        for (int i = 0; i < retiredCount; i++) {
            SequenceState seq = retired.pollFirst();
            delivered += readOut.read(this, ring, seq, identity, sink, sessionEnded);
            if (!seq.chunks.isEmpty()) {
                retired.addLast(seq);
            }
        }
        for (SequenceState seq : sequences.values()) {
            delivered += readOut.read(this, ring, seq, identity, sink, sessionEnded);
        }
        usedAfterLastRead = used;
        return delivered;
    }

    /** The read-out is done with {@code chunk}: its ring space is reused when the write position comes around. */
    void released(ChunkRecord chunk) {
        chunk.dead = true;
        used -= chunk.size;
        counters.bytesRead += chunk.size;
    }
}
