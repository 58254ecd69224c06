package io.jtrace.service.buffer;

/**
 * Checks a producer's packet before the service appends its trusted fields: every top-level field must
 * be well-formed and end exactly at the packet's end (else a trailing length field could swallow the
 * appended fields and let the producer's own values win), and no field may be one only the service
 * sets.
 */
final class PacketValidator {
    enum Verdict {
        OK,
        /** OK, and the packet carries a track_descriptor: trace_processor takes its trusted_pid as the track's process. */
        DESCRIBES_TRACK,
        MALFORMED,
        SETS_TRUSTED_FIELD;

        boolean valid() {
            return this == OK || this == DESCRIBES_TRACK;
        }
    }

    /** Fields only the service may write: trusted_uid, trusted_packet_sequence_id, previous_packet_dropped, trusted_pid. */
    private static final int[] TRUSTED_FIELDS = {3, 10, 42, 79};
    /** TRUSTED_FIELDS as bits (all are below 128): one test per field instead of a loop. */
    private static final long TRUSTED_LOW = bitsBelow(64, 0);
    private static final long TRUSTED_HIGH = bitsBelow(128, 64);
    private static final int TRACK_DESCRIPTOR_FIELD = 60;

    private static final byte BROKEN = 0;
    private static final byte VARINT = 1;
    private static final byte FIXED64 = 2;
    private static final byte LENGTH_DELIMITED = 3;
    private static final byte FIXED32 = 4;
    private static final byte TRUSTED = 5;
    /** {@link #action} of every one-byte tag (fields 1-15), so the common tag costs a load, not a decision. */
    private static final byte[] ONE_BYTE_TAGS = oneByteTags();

    private PacketValidator() {}

    static Verdict check(byte[] data, int start, int size) {
        int pos = start;
        int end = start + size;
        boolean describesTrack = false;
        while (pos < end) {
            int tag = data[pos];
            int action;
            if (tag >= 0) {
                pos++; // fields 1-15, the common case: one table lookup judges the field and its wire type
                action = ONE_BYTE_TAGS[tag];
            } else {
                long tagAndLength = Varints.read(data, pos, end);
                if (tagAndLength < 0) {
                    return Verdict.MALFORMED;
                }
                pos += (int) (tagAndLength >>> 32);
                tag = (int) tagAndLength;
                describesTrack |= tag >>> 3 == TRACK_DESCRIPTOR_FIELD;
                action = action(tag);
            }
            switch (action) {
                case VARINT:
                    // Small values (deltas, ids, flags) take one byte; longer ones take the loop.
                    pos = pos < end && data[pos] >= 0 ? pos + 1 : Varints.skip(data, pos, end);
                    break;
                case FIXED64:
                    pos += 8;
                    break;
                case LENGTH_DELIMITED:
                    if (pos < end && data[pos] >= 0) {
                        pos += 1 + data[pos]; // a length below 128: one byte
                        break;
                    }
                    long length = Varints.read(data, pos, end);
                    if (length < 0) {
                        return Verdict.MALFORMED;
                    }
                    pos += (int) (length >>> 32) + (int) length;
                    break;
                case FIXED32:
                    pos += 4;
                    break;
                case TRUSTED:
                    return Verdict.SETS_TRUSTED_FIELD;
                default:
                    return Verdict.MALFORMED;
            }
            // Negative: a skip ran past the end, or a length near 2^31 overflowed the position.
            if (pos < 0 || pos > end) {
                return Verdict.MALFORMED;
            }
        }
        return describesTrack ? Verdict.DESCRIBES_TRACK : Verdict.OK;
    }

    /** What a tag asks of the walk: skip a value of its wire type, or stop the packet. */
    private static byte action(int tag) {
        int field = tag >>> 3;
        if (field == 0) {
            return BROKEN;
        }
        if (field < 64 ? (TRUSTED_LOW >>> field & 1) != 0 : field < 128 && (TRUSTED_HIGH >>> (field - 64) & 1) != 0) {
            return TRUSTED;
        }
        switch (tag & 7) {
            case 0:
                return VARINT;
            case 1:
                return FIXED64;
            case 2:
                return LENGTH_DELIMITED;
            case 5:
                return FIXED32;
            default:
                return BROKEN; // groups and reserved wire types are not used by trace packets
        }
    }

    private static byte[] oneByteTags() {
        byte[] actions = new byte[128];
        for (int tag = 0; tag < 128; tag++) {
            actions[tag] = action(tag);
        }
        return actions;
    }

    private static long bitsBelow(int limit, int base) {
        long bits = 0;
        for (int field : TRUSTED_FIELDS) {
            if (field >= base && field < limit) {
                bits |= 1L << (field - base);
            }
        }
        return bits;
    }
}
