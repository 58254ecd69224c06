package io.jtrace.service.buffer;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.proto.WireFormat;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The service's own buffer for one {@code TraceConfig.buffers[]} entry: chunks copied out of producers'
 * SMBs, kept until read, indexed by (producer, writer, chunk id).
 *
 * <p>Capacity is counted in payload bytes. When full, {@link Policy#RING} overwrites the oldest chunks
 * and {@link Policy#DISCARD} refuses new ones; either way the sequences that lost data get
 * {@code previous_packet_dropped} on their next packet read.
 *
 * <p>Reading is per sequence in chunk-id order (wrap-aware), glues fragments that continue across
 * consecutive chunks, and removes what it read. Only the service thread touches a buffer.
 */
public final class TraceBuffer {
    public enum Policy { RING, DISCARD }

    private static final int TRUSTED_UID_FIELD = 3;
    private static final int TRUSTED_SEQUENCE_ID_FIELD = 10;
    private static final int PREVIOUS_PACKET_DROPPED_FIELD = 42;
    private static final int TRUSTED_PID_FIELD = 79;
    private static final int FIRST_PACKET_ON_SEQUENCE_FIELD = 87;
    /** Room for the trusted fields appended to each packet read out (5 tags + varints). */
    private static final int TRAILER_MAX = 64;

    private final long capacity;
    private final Policy policy;
    private final BufferCounters counters = new BufferCounters();
    /** Every stored chunk by insertion order, to find the oldest when overwriting. */
    private final TreeMap<Long, ChunkRecord> byAge = new TreeMap<>();
    /** Sequences in the order they first appeared, so the read-out order is stable. */
    private final Map<SequenceKey, SequenceState> sequences = new LinkedHashMap<>();
    private long used;
    private long insertions;
    private byte[] out = new byte[4096];

    private static final class SequenceState {
        final TreeMap<Long, ChunkRecord> chunks = new TreeMap<>();
        boolean anyChunk;
        int maxChunkId;
        long maxOrdinal;
        /** Ordinal of the chunk the next read expects; -1 before the first read. */
        long nextOrdinal = -1;
        boolean lossPending;
        boolean firstPacketEmitted;
        /** Start of a packet whose rest is in the next chunk, or null. */
        byte[] pendingFragment;
        /** Ordinals of chunks lost before being read: the first packet read after one is marked. */
        final TreeSet<Long> lostOrdinals = new TreeSet<>();

        /** Records a lost chunk so the loss is reported on the first packet after it, not before. */
        void lost(long ordinal) {
            if (nextOrdinal >= 0 && ordinal < nextOrdinal) {
                lossPending = true;
            } else {
                lostOrdinals.add(ordinal);
            }
        }
    }

    public TraceBuffer(long capacityBytes, Policy policy) {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("buffer size must be positive, got " + capacityBytes);
        }
        this.capacity = capacityBytes;
        this.policy = policy;
    }

    public long capacity() {
        return capacity;
    }

    public long used() {
        return used;
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
     * Stores a chunk. {@code payload} (the bytes after the chunk header) becomes the buffer's own.
     * Returns false when the chunk was refused (malformed header, too large, or buffer full in
     * DISCARD mode).
     */
    public boolean copyChunk(int producerId, int writerId, int chunkId, int packetsWord, byte[] payload, boolean complete) {
        if (writerId <= 0 || writerId > ChunkHeader.MAX_WRITER_ID) {
            counters.abiViolations++;
            return false;
        }
        SequenceKey key = new SequenceKey(producerId, writerId);
        SequenceState seq = sequences.computeIfAbsent(key, k -> new SequenceState());
        long ordinal = ordinalOf(seq, chunkId);
        if (payload.length > capacity) {
            counters.chunksDiscarded++;
            seq.lost(ordinal);
            return false;
        }
        ChunkRecord existing = seq.chunks.get(ordinal);
        if (existing != null) {
            // A re-commit of a chunk we hold (e.g. scraped before, now complete): take the newer copy,
            // if there is room for it; otherwise keep the older one.
            int growth = payload.length - existing.payload.length;
            if (growth > 0 && !makeRoom(growth, existing)) {
                counters.chunksDiscarded++;
                return false;
            }
            used += growth;
            existing.payload = payload;
            existing.packetCount = ChunkHeader.packetCount(packetsWord);
            existing.flags = ChunkHeader.flags(packetsWord);
            existing.complete = complete;
            counters.chunksRewritten++;
            return true;
        }
        if (seq.nextOrdinal >= 0 && ordinal < seq.nextOrdinal) {
            // Older than what was already read out: it can no longer be delivered in order.
            counters.chunksDiscarded++;
            seq.lossPending = true;
            return false;
        }
        if (!makeRoom(payload.length, null)) {
            counters.chunksDiscarded++;
            seq.lost(ordinal);
            return false;
        }
        if (seq.anyChunk && ordinal < seq.maxOrdinal) {
            counters.chunksCommittedOutOfOrder++;
        }
        if (!seq.anyChunk || ordinal > seq.maxOrdinal) {
            seq.anyChunk = true;
            seq.maxOrdinal = ordinal;
            seq.maxChunkId = chunkId;
        }
        ChunkRecord record = new ChunkRecord(key, chunkId, ordinal);
        record.payload = payload;
        record.packetCount = ChunkHeader.packetCount(packetsWord);
        record.flags = ChunkHeader.flags(packetsWord);
        record.complete = complete;
        record.insertionSeq = insertions++;
        seq.chunks.put(ordinal, record);
        byAge.put(record.insertionSeq, record);
        used += payload.length;
        counters.chunksWritten++;
        counters.bytesWritten += payload.length;
        return true;
    }

    /**
     * Fills a size field left open in a stored chunk. {@code offset} counts from the start of the
     * chunk's payload; {@code value} is the 4 bytes as a little-endian int. When {@code hasMorePatches}
     * is false the chunk no longer needs patching and its sequence can be read past it. Returns false
     * (counting a failed patch) for an unknown chunk or an offset outside it.
     */
    public boolean applyPatch(int producerId, int writerId, int chunkId, int offset, int value, boolean hasMorePatches) {
        SequenceState seq = sequences.get(new SequenceKey(producerId, writerId));
        ChunkRecord chunk = seq == null || !seq.anyChunk ? null : seq.chunks.get(ordinalOf(seq, chunkId));
        if (chunk == null || offset < 0 || offset > chunk.payload.length - 4) {
            counters.patchesFailed++;
            return false;
        }
        chunk.payload[offset] = (byte) value;
        chunk.payload[offset + 1] = (byte) (value >>> 8);
        chunk.payload[offset + 2] = (byte) (value >>> 16);
        chunk.payload[offset + 3] = (byte) (value >>> 24);
        if (!hasMorePatches) {
            chunk.flags &= ~ChunkHeader.FLAG_NEEDS_PATCHING;
        }
        counters.patchesSucceeded++;
        return true;
    }

    /** Chunk ids increase by one per chunk and wrap at 2^32: place {@code chunkId} relative to the newest seen. */
    private static long ordinalOf(SequenceState seq, int chunkId) {
        if (!seq.anyChunk) {
            return Integer.toUnsignedLong(chunkId) + (1L << 32);
        }
        return seq.maxOrdinal + (chunkId - seq.maxChunkId);
    }

    /** Frees room for {@code bytes} more, overwriting the oldest chunks in RING mode (never {@code keep}). */
    private boolean makeRoom(long bytes, ChunkRecord keep) {
        if (used + bytes <= capacity) {
            return true;
        }
        if (policy == Policy.DISCARD) {
            return false;
        }
        Iterator<ChunkRecord> oldest = byAge.values().iterator();
        while (used + bytes > capacity && oldest.hasNext()) {
            ChunkRecord victim = oldest.next();
            if (victim == keep) {
                continue;
            }
            oldest.remove();
            SequenceState seq = sequences.get(victim.sequence);
            seq.chunks.remove(victim.ordinal);
            seq.lost(victim.ordinal);
            used -= victim.size();
            counters.chunksOverwritten++;
            counters.bytesOverwritten += victim.size();
            counters.writeWrapCount++;
        }
        return used + bytes <= capacity;
    }

    /**
     * Reads stored packets out, sequence by sequence, each with the trusted fields appended, and removes
     * the chunks read. Returns the number of packets delivered.
     *
     * <p>While a session runs ({@code sessionEnded} false) a sequence stops, until a later read, at a
     * chunk that still needs patching, at a chunk copied while still being written, and at a gap in
     * chunk ids that may yet be filled by an out-of-order commit (a gap known to be lost is skipped and
     * reported). Once the session has ended nothing more can arrive: everything is read, and what is
     * missing or unpatched is reported as lost.
     */
    public long readAll(SequenceIdentity identity, PacketSink sink, boolean sessionEnded) {
        long delivered = 0;
        for (Map.Entry<SequenceKey, SequenceState> entry : sequences.entrySet()) {
            SequenceKey key = entry.getKey();
            SequenceState seq = entry.getValue();
            int sequenceId = identity.sequenceId(key.producerId(), key.writerId());
            int pid = identity.pid(key.producerId());
            int uid = identity.uid(key.producerId());
            Iterator<ChunkRecord> it = seq.chunks.values().iterator();
            while (it.hasNext()) {
                ChunkRecord chunk = it.next();
                boolean gap = seq.nextOrdinal >= 0 && chunk.ordinal != seq.nextOrdinal;
                if (!sessionEnded && (!chunk.complete || needsPatching(chunk) || (gap && !knownLost(seq, chunk)))) {
                    break;
                }
                SortedSet<Long> lostBefore = seq.lostOrdinals.headSet(chunk.ordinal);
                if (!lostBefore.isEmpty() || gap) {
                    lostBefore.clear();
                    seq.lossPending = true;
                    seq.pendingFragment = null;
                }
                delivered += readChunk(chunk, seq, sequenceId, pid, uid, sink);
                seq.nextOrdinal = chunk.ordinal + 1;
                it.remove();
                byAge.remove(chunk.insertionSeq);
                used -= chunk.size();
                counters.chunksRead++;
                counters.bytesRead += chunk.size();
            }
        }
        return delivered;
    }

    private static boolean needsPatching(ChunkRecord chunk) {
        return (chunk.flags & ChunkHeader.FLAG_NEEDS_PATCHING) != 0;
    }

    /** Every chunk between the last one read and {@code chunk} is known to be lost. */
    private static boolean knownLost(SequenceState seq, ChunkRecord chunk) {
        return seq.lostOrdinals.subSet(seq.nextOrdinal, chunk.ordinal).size() == chunk.ordinal - seq.nextOrdinal;
    }

    private long readChunk(ChunkRecord chunk, SequenceState seq, int sequenceId, int pid, int uid, PacketSink sink) {
        byte[] data = chunk.payload;
        int pos = 0;
        long delivered = 0;
        for (int i = 0; i < chunk.packetCount; i++) {
            long sizeAndLength = readVarint(data, pos, data.length);
            if (sizeAndLength < 0) {
                return abortChunk(seq, delivered);
            }
            int sizeLength = (int) (sizeAndLength >>> 32);
            int size = (int) sizeAndLength;
            pos += sizeLength;
            if (size == WireFormat.DROPPED_PACKET_SIZE) {
                // The writer lost packets here (SMB full or an aborted packet).
                counters.writerPacketLoss++;
                seq.lossPending = true;
                seq.pendingFragment = null;
                continue;
            }
            if (size > data.length - pos) {
                return abortChunk(seq, delivered);
            }
            int start = pos;
            pos += size;
            boolean first = i == 0;
            boolean last = i == chunk.packetCount - 1;
            boolean continuesFromPrev = first && (chunk.flags & ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV) != 0;
            boolean continuesOnNext = last && (chunk.flags & ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT) != 0;
            if (continuesOnNext && needsPatching(chunk)) {
                // Its patches never came: the packet's size fields are wrong. Drop it, report the loss.
                seq.pendingFragment = null;
                seq.lossPending = true;
                continue;
            }
            if (continuesFromPrev) {
                if (seq.pendingFragment == null) {
                    // Its beginning was lost (overwritten or never committed).
                    seq.lossPending = true;
                    continue;
                }
                byte[] glued = concat(seq.pendingFragment, data, start, size);
                seq.pendingFragment = null;
                if (continuesOnNext) {
                    seq.pendingFragment = glued;
                    continue;
                }
                delivered += emit(glued, 0, glued.length, seq, sequenceId, pid, uid, sink);
                continue;
            }
            if (first && seq.pendingFragment != null) {
                // The previous chunk promised a continuation this chunk does not carry.
                seq.pendingFragment = null;
                seq.lossPending = true;
            }
            if (continuesOnNext) {
                seq.pendingFragment = concat(new byte[0], data, start, size);
                continue;
            }
            delivered += emit(data, start, size, seq, sequenceId, pid, uid, sink);
        }
        return delivered;
    }

    private long abortChunk(SequenceState seq, long delivered) {
        counters.abiViolations++;
        seq.lossPending = true;
        seq.pendingFragment = null;
        return delivered;
    }

    private int emit(byte[] data, int start, int size, SequenceState seq, int sequenceId, int pid, int uid, PacketSink sink) {
        if (size == 0) {
            return 0;
        }
        PacketValidator.Verdict verdict = PacketValidator.check(data, start, size);
        if (verdict != PacketValidator.Verdict.OK) {
            counters.invalidPackets++;
            if (verdict == PacketValidator.Verdict.SETS_TRUSTED_FIELD) {
                counters.trustedFieldViolations++;
            }
            seq.lossPending = true;
            return 0;
        }
        int needed = size + TRAILER_MAX;
        if (out.length < needed) {
            out = new byte[Math.max(needed, out.length * 2)];
        }
        System.arraycopy(data, start, out, 0, size);
        int pos = size;
        // Appended after the producer's bytes: for a non-repeated field the last occurrence wins, so
        // these trusted values override anything the producer wrote.
        pos = putVarintField(out, pos, TRUSTED_UID_FIELD, uid);
        pos = putVarintField(out, pos, TRUSTED_SEQUENCE_ID_FIELD, sequenceId);
        pos = putVarintField(out, pos, TRUSTED_PID_FIELD, pid);
        if (seq.lossPending) {
            pos = putVarintField(out, pos, PREVIOUS_PACKET_DROPPED_FIELD, 1);
            seq.lossPending = false;
        }
        if (!seq.firstPacketEmitted) {
            pos = putVarintField(out, pos, FIRST_PACKET_ON_SEQUENCE_FIELD, 1);
            seq.firstPacketEmitted = true;
        }
        sink.packet(out, 0, pos);
        return 1;
    }

    private static byte[] concat(byte[] head, byte[] data, int start, int size) {
        byte[] result = new byte[head.length + size];
        System.arraycopy(head, 0, result, 0, head.length);
        System.arraycopy(data, start, result, head.length, size);
        return result;
    }

    /** Varint at {@code pos} before {@code end}: (bytes used << 32 | value), or -1 if malformed, truncated or ≥ 2^31. */
    static long readVarint(byte[] data, int pos, int end) {
        long value = 0;
        for (int i = 0; i < 5; i++) {
            if (pos + i >= end) {
                return -1;
            }
            int b = data[pos + i] & 0xFF;
            value |= (long) (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                if (value > Integer.MAX_VALUE) {
                    return -1;
                }
                return ((long) (i + 1) << 32) | value;
            }
        }
        return -1;
    }

    static int putVarintField(byte[] dst, int pos, int field, long value) {
        pos = putVarint(dst, pos, (long) field << 3);
        return putVarint(dst, pos, value);
    }

    private static int putVarint(byte[] dst, int pos, long value) {
        while ((value & ~0x7FL) != 0) {
            dst[pos++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        dst[pos++] = (byte) value;
        return pos;
    }
}
