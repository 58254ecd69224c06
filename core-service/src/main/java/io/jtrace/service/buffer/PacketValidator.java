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

    private PacketValidator() {}

    static Verdict check(byte[] data, int start, int size) {
        int pos = start;
        int end = start + size;
        boolean describesTrack = false;
        while (pos < end) {
            long tagAndLength = ChunkPacketReader.readVarint(data, pos, end);
            if (tagAndLength < 0) {
                return Verdict.MALFORMED;
            }
            pos += (int) (tagAndLength >>> 32);
            int tag = (int) tagAndLength;
            int field = tag >>> 3;
            if (field == 0) {
                return Verdict.MALFORMED;
            }
            describesTrack |= field == TRACK_DESCRIPTOR_FIELD;
            if (field < 64 ? (TRUSTED_LOW >>> field & 1) != 0 : field < 128 && (TRUSTED_HIGH >>> (field - 64) & 1) != 0) {
                return Verdict.SETS_TRUSTED_FIELD;
            }
            switch (tag & 7) {
                case 0:
                    pos = skipVarint(data, pos, end);
                    break;
                case 1:
                    pos += 8;
                    break;
                case 2:
                    long length = ChunkPacketReader.readVarint(data, pos, end);
                    if (length < 0) {
                        return Verdict.MALFORMED;
                    }
                    pos += (int) (length >>> 32) + (int) length;
                    break;
                case 5:
                    pos += 4;
                    break;
                default:
                    return Verdict.MALFORMED; // groups and reserved wire types are not used by trace packets
            }
            if (pos < 0 || pos > end) {
                return Verdict.MALFORMED;
            }
        }
        return describesTrack ? Verdict.DESCRIBES_TRACK : Verdict.OK;
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

    private static int skipVarint(byte[] data, int pos, int end) {
        for (int i = 0; i < 10; i++) {
            if (pos + i >= end) {
                return -1;
            }
            if ((data[pos + i] & 0x80) == 0) {
                return pos + i + 1;
            }
        }
        return -1;
    }
}
