package io.jtrace.service.buffer;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.proto.WireFormat;

/**
 * The read-out half of a {@link TraceBuffer}: turns a stored chunk back into packets for a sink, with
 * the service's trusted fields appended to each, and keeps the buffer's loss counters for what cannot be
 * delivered (drop markers, broken chunks, invalid packets). Service thread only; the one scratch array
 * it appends trailers in is reused from packet to packet.
 */
final class ChunkPacketReader {
    private static final int TRUSTED_UID_FIELD = 3;
    private static final int TRUSTED_SEQUENCE_ID_FIELD = 10;
    private static final int PREVIOUS_PACKET_DROPPED_FIELD = 42;
    private static final int TRUSTED_PID_FIELD = 79;
    private static final int FIRST_PACKET_ON_SEQUENCE_FIELD = 87;
    private static final int TRAILER_MAX = 64;

    private final BufferCounters counters;
    private byte[] out = new byte[4096];

    ChunkPacketReader(BufferCounters counters) {
        this.counters = counters;
    }

    /**
     * Delivers the packets of {@code chunk} (stored in {@code data}, the buffer's ring) to {@code sink}: frames walked,
     * fragments glued across consecutive chunks through {@code seq}, drop markers and broken chunks
     * turned into loss on the sequence. Returns the number of packets delivered.
     */
    long read(byte[] data, ChunkRecord chunk, TraceBuffer.SequenceState seq, int sequenceId, int pid, int uid,
              PacketSink sink) {
        int pos = chunk.offset;
        int end = chunk.offset + chunk.size;
        long delivered = 0;
        for (int i = 0; i < chunk.packetCount; i++) {
            long sizeAndLength = readVarint(data, pos, end);
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
            if (size > end - pos) {
                return abortChunk(seq, delivered);
            }
            int start = pos;
            pos += size;
            boolean first = i == 0;
            boolean last = i == chunk.packetCount - 1;
            boolean continuesFromPrev = first && (chunk.flags & ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV) != 0;
            boolean continuesOnNext = last && (chunk.flags & ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT) != 0;
            if (continuesOnNext && TraceBuffer.needsPatching(chunk)) {
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
                delivered += emit(glued, 0, glued.length, seq, sequenceId, pid, uid, delivered == 0, sink);
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
            delivered += emit(data, start, size, seq, sequenceId, pid, uid, delivered == 0, sink);
        }
        return delivered;
    }

    private long abortChunk(TraceBuffer.SequenceState seq, long delivered) {
        counters.abiViolations++;
        seq.lossPending = true;
        seq.pendingFragment = null;
        return delivered;
    }

    /**
     * Hands one packet to the sink with the service's trusted fields appended. trusted_packet_sequence_id
     * goes on every packet; trusted_uid and trusted_pid (the same for every packet of a sequence) go on
     * the first packet delivered from each chunk and on every packet that describes a track, the only
     * packets trace_processor reads them from: every packet still has its producer's identity on a packet
     * of its sequence at most a chunk before it, at 6 bytes per chunk instead of 6 bytes per packet.
     */
    private int emit(byte[] data, int start, int size, TraceBuffer.SequenceState seq, int sequenceId, int pid, int uid,
                     boolean firstOfChunk, PacketSink sink) {
        if (size == 0) {
            return 0;
        }
        PacketValidator.Verdict verdict = PacketValidator.check(data, start, size);
        if (!verdict.valid()) {
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
        pos = putVarintField(out, pos, TRUSTED_SEQUENCE_ID_FIELD, sequenceId);
        if (firstOfChunk || verdict == PacketValidator.Verdict.DESCRIBES_TRACK || !seq.firstPacketEmitted) {
            pos = putVarintField(out, pos, TRUSTED_UID_FIELD, uid);
            pos = putVarintField(out, pos, TRUSTED_PID_FIELD, pid);
        }
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
