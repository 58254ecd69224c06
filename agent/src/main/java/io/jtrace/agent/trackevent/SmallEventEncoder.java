package io.jtrace.agent.trackevent;

import io.jtrace.producer.tracks.SequenceHeader;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.writer.TraceWriter;
import java.nio.ByteBuffer;

/**
 * The hot path of track_event: a slice begin/end or instant whose name and category are already
 * interned, encoded with a handful of 8-byte stores instead of field-by-field writes.
 *
 * <pre>
 *  0x40 ts(varint)            timestamp: the delta on the sequence's incremental clock
 * [0x68 0x02                  sequence_flags = SEQ_NEEDS_INCREMENTAL_STATE, unless the chunk says it]
 *  0x5a len                   track_event {
 *    0x48 type                  type
 *    [0x18 category_iid]        category_iids
 *    [0x50 name_iid]            name_iid
 *    [0x58 track_uuid]          track_uuid (pooled sequences only: they have no default track)  }
 * </pre>
 *
 * The packet needs its sequence's incremental state. When the writer's chunks say so
 * ({@link io.jtrace.shm.abi.ChunkHeader#FLAG_NEEDS_INCREMENTAL_STATE}, which a track_event writer sets
 * when its service reads it) the packet carries no {@code sequence_flags}: the file holds it only where
 * that state is valid, so trace_processor never needs the flag either. That saves 4 of a steady-state
 * slice's 30 bytes in the file. For an older service the packet says it itself.
 *
 * <p>Every byte after the timestamp is known up front, so it is assembled in registers and stored as one
 * or two longs. Stores may run past the packet's end into the reserved room; those bytes are
 * overwritten by the next packet or never read (the frame gives the packet's length).
 */
final class SmallEventEncoder {
    /**
     * Largest packet this encoder writes: tag + 9-byte timestamp + 6 fixed bytes (the sequence flags
     * among them) + two 3-byte fields + a track uuid (tag and a varint of up to 10 bytes).
     */
    static final int MAX_SIZE = 1 + 9 + 6 + 6 + 11;
    /** Iids that fit in two varint bytes. */
    static final int MAX_SMALL_IID = (1 << 14) - 1;

    private static final int TIMESTAMP_TAG = TracePacket.TIMESTAMP_FIELD_NUMBER << 3;
    private static final int SEQUENCE_FLAGS_TAG = TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER << 3;
    private static final int TRACK_EVENT_TAG = TracePacket.TRACK_EVENT_FIELD_NUMBER << 3 | 2;
    private static final int TYPE_TAG = TrackEvent.TYPE_FIELD_NUMBER << 3;
    private static final int CATEGORY_TAG = TrackEvent.CATEGORY_IIDS_FIELD_NUMBER << 3;
    private static final int NAME_TAG = TrackEvent.NAME_IID_FIELD_NUMBER << 3;
    private static final int TRACK_UUID_TAG = TrackEvent.TRACK_UUID_FIELD_NUMBER << 3;

    private SmallEventEncoder() {}

    private static int varintLength(long v) {
        return v == 0 ? 1 : (63 - Long.numberOfLeadingZeros(v)) / 7 + 1;
    }

    /** The varint bytes of {@code v} < 2^14, little-endian in a long (1 or 2 bytes). */
    private static long varint14(int v) {
        return v < 0x80 ? v : (v & 0x7F | 0x80) | (long) (v >>> 7) << 8;
    }

    /**
     * Writes the event if it fits in the writer's current chunk or a fresh one
     * ({@link TraceWriter#tryReserve}); returns false (nothing written) when the caller must take the
     * general path: a negative timestamp, an iid above {@link #MAX_SMALL_IID}, no free chunk. {@code categoryIid} and {@code nameIid} are 0 when absent; {@code trackUuid} is 0 for the
     * sequence's default track.
     */
    static boolean tryWrite(TraceWriter writer, long timestamp, int type, int categoryIid, int nameIid,
                            long trackUuid) {
        if (timestamp < 0 || categoryIid > MAX_SMALL_IID || nameIid > MAX_SMALL_IID) {
            return false;
        }
        int at = writer.tryReserve(MAX_SIZE + 8);
        if (at < 0) {
            return false;
        }
        ByteBuffer b = writer.buffer();
        // Tag and timestamp varint (7 bits per byte, continuation bit on all but the last) assembled in a
        // register: one store for values below 2^49 (every delta but one of days), two above.
        long v = timestamp;
        long low = TIMESTAMP_TAG;
        int n = 1;
        while (v >= 0x80 && n < 8) {
            low |= ((v & 0x7F) | 0x80) << (8 * n);
            v >>>= 7;
            n++;
        }
        int p;
        if (v < 0x80 && n < 8) {
            low |= v << (8 * n);
            b.putLong(at, low);
            p = at + n + 1;
        } else {
            b.putLong(at, low);
            p = at + 8;
            while (v >= 0x80) {
                b.put(p++, (byte) (v | 0x80));
                v >>>= 7;
            }
            b.put(p++, (byte) v);
        }
        // The optional fields, each a tag and a 1- or 2-byte varint iid, gathered in one register.
        long extra = 0;
        int extraLength = 0;
        if (categoryIid != 0) {
            extra = CATEGORY_TAG | varint14(categoryIid) << 8;
            extraLength = categoryIid < 0x80 ? 2 : 3;
        }
        if (nameIid != 0) {
            extra |= (NAME_TAG | varint14(nameIid) << 8) << (8 * extraLength);
            extraLength += nameIid < 0x80 ? 2 : 3;
        }
        int trackLength = trackUuid == 0 ? 0 : 1 + varintLength(trackUuid);
        int eventLength = 2 + extraLength + trackLength;
        long head = TRACK_EVENT_TAG
                | eventLength << 8
                | TYPE_TAG << 16
                | (long) type << 24;
        int headLength = 4;
        if (!writer.chunksSayPacketsNeedIncrementalState()) {
            // A service that does not read the chunk's flag: the packet says it needs the state itself.
            head = head << 16 | SEQUENCE_FLAGS_TAG | (long) SequenceHeader.SEQ_NEEDS_INCREMENTAL_STATE << 8;
            headLength = 6;
        }
        b.putLong(p, head | extra << (8 * headLength));
        if (extraLength > 8 - headLength) {
            b.putLong(p + 8, extra >>> (8 * (8 - headLength)));
        }
        if (trackLength != 0) {
            // After the wide stores above, which may have run over these bytes.
            int q = p + headLength + extraLength;
            b.put(q++, (byte) TRACK_UUID_TAG);
            long u = trackUuid;
            while ((u & ~0x7FL) != 0) {
                b.put(q++, (byte) (u | 0x80));
                u >>>= 7;
            }
            b.put(q, (byte) u);
        }
        int end = p + headLength - 2 + eventLength;
        writer.commitReserved(end - at);
        return true;
    }
}
