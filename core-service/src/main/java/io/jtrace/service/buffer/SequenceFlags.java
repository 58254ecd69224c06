package io.jtrace.service.buffer;

/**
 * Reads a packet's {@code sequence_flags} the way trace_processor does, for the read-out of a sequence
 * that lost data: after a loss trace_processor skips every packet flagged NEEDS_INCREMENTAL_STATE until
 * one flagged INCREMENTAL_STATE_CLEARED (or carrying the older {@code incremental_state_cleared = 41}),
 * so the service must know which packets those are to keep them out of the file.
 */
final class SequenceFlags {
    static final int INCREMENTAL_STATE_CLEARED = 1;
    static final int NEEDS_INCREMENTAL_STATE = 2;

    private static final int SEQUENCE_FLAGS_FIELD = 13;
    private static final int LEGACY_INCREMENTAL_STATE_CLEARED_FIELD = 41;

    private SequenceFlags() {}

    /**
     * The flags of the packet in {@code [start, start + size)}, with the legacy cleared field folded into
     * {@link #INCREMENTAL_STATE_CLEARED}; 0 for a packet that has none or cannot be walked (the service
     * then keeps it, as trace_processor would not skip it for its flags either).
     */
    static int of(byte[] data, int start, int size) {
        int pos = start;
        int end = start + size;
        int flags = 0;
        while (pos < end) {
            long tagAndLength = Varints.read(data, pos, end);
            if (tagAndLength < 0) {
                return 0;
            }
            pos += (int) (tagAndLength >>> 32);
            int tag = (int) tagAndLength;
            int field = tag >>> 3;
            switch (tag & 7) {
                case 0 -> {
                    if (field == SEQUENCE_FLAGS_FIELD || field == LEGACY_INCREMENTAL_STATE_CLEARED_FIELD) {
                        long value = Varints.read(data, pos, end);
                        if (value < 0) {
                            return 0;
                        }
                        pos += (int) (value >>> 32);
                        int v = (int) value;
                        flags |= field == SEQUENCE_FLAGS_FIELD ? v : (v != 0 ? INCREMENTAL_STATE_CLEARED : 0);
                    } else {
                        pos = Varints.skip(data, pos, end);
                    }
                }
                case 1 -> pos += 8;
                case 2 -> {
                    long length = Varints.read(data, pos, end);
                    if (length < 0) {
                        return 0;
                    }
                    pos += (int) (length >>> 32) + (int) length;
                }
                case 5 -> pos += 4;
                default -> {
                    return 0;
                }
            }
            if (pos < 0 || pos > end) {
                return 0;
            }
        }
        return flags;
    }
}
