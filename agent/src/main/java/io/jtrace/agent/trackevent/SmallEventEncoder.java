package io.jtrace.agent.trackevent;

import io.jtrace.agent.tracks.SequenceHeader;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.writer.TraceWriter;
import java.nio.ByteBuffer;

/**
 * The hot path of track_event: a slice begin/end or instant whose name and category are already
 * interned, encoded with a handful of 8-byte stores instead of field-by-field writes.
 *
 * <pre>
 *  0x40 ts(varint)            timestamp
 *  0x68 0x02                  sequence_flags = SEQ_NEEDS_INCREMENTAL_STATE
 *  0x5a len                   track_event {
 *    0x48 type                  type
 *    [0x18 category_iid]        category_iids
 *    [0x50 name_iid]            name_iid  }
 * </pre>
 *
 * Every byte after the timestamp is known up front, so it is assembled in registers and stored as one
 * long and one short. Stores may run past the packet's end into the reserved room; those bytes are
 * overwritten by the next packet or never read (the frame gives the packet's length).
 */
final class SmallEventEncoder {
    /** Largest packet this encoder writes: tag + 9-byte timestamp + 10 bytes of fixed fields. */
    static final int MAX_SIZE = 1 + 9 + 10;
    /** Iids that fit in one varint byte. */
    static final int MAX_SMALL_IID = 127;

    private static final int TIMESTAMP_TAG = TracePacket.TIMESTAMP_FIELD_NUMBER << 3;
    private static final int SEQUENCE_FLAGS_TAG = TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER << 3;
    private static final int TRACK_EVENT_TAG = TracePacket.TRACK_EVENT_FIELD_NUMBER << 3 | 2;
    private static final int TYPE_TAG = TrackEvent.TYPE_FIELD_NUMBER << 3;
    private static final int CATEGORY_TAG = TrackEvent.CATEGORY_IIDS_FIELD_NUMBER << 3;
    private static final int NAME_TAG = TrackEvent.NAME_IID_FIELD_NUMBER << 3;

    private SmallEventEncoder() {}

    /**
     * Writes the event if it fits in the writer's current chunk; returns false (nothing written) when
     * the caller must take the general path. {@code categoryIid} and {@code nameIid} are 0 when absent,
     * else 1..127.
     */
    static boolean tryWrite(TraceWriter writer, long timestamp, int type, int categoryIid, int nameIid) {
        if (timestamp < 0) {
            return false;
        }
        int at = writer.tryReserve(MAX_SIZE + 8);
        if (at < 0) {
            return false;
        }
        ByteBuffer b = writer.buffer();
        // Tag and timestamp varint (7 bits per byte, continuation bit on all but the last) assembled in a
        // register: one store for timestamps below 2^49 (~6.5 days of uptime), two above.
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
        int eventLength = 2 + (categoryIid != 0 ? 2 : 0) + (nameIid != 0 ? 2 : 0);
        long tail = SEQUENCE_FLAGS_TAG
                | (long) SequenceHeader.SEQ_NEEDS_INCREMENTAL_STATE << 8
                | (long) TRACK_EVENT_TAG << 16
                | (long) eventLength << 24
                | (long) TYPE_TAG << 32
                | (long) type << 40;
        int rest = 0;
        int restBytes = 0;
        if (categoryIid != 0) {
            tail |= (long) CATEGORY_TAG << 48 | (long) categoryIid << 56;
            if (nameIid != 0) {
                rest = NAME_TAG | nameIid << 8;
                restBytes = 2;
            }
        } else if (nameIid != 0) {
            tail |= (long) NAME_TAG << 48 | (long) nameIid << 56;
        }
        b.putLong(p, tail);
        int end = p + 4 + eventLength;
        if (restBytes != 0) {
            b.putShort(p + 8, (short) rest);
        }
        writer.commitReserved(end - at);
        return true;
    }
}
