package io.jtrace.service.buffer;

import io.jtrace.producer.tracks.SequenceHeader;

/**
 * Reads what trace_processor reads of a packet to decide whether it needs its sequence's incremental
 * state: after a loss (and before a sequence's first clear) trace_processor skips every packet flagged
 * NEEDS_INCREMENTAL_STATE until one flagged INCREMENTAL_STATE_CLEARED (or carrying the older
 * {@code incremental_state_cleared = 41}), except packets it handles before that check (a clock
 * snapshot, a service event, an extension descriptor, a remote clock sync). The service must know
 * which packets those are to keep them out of the file.
 */
final class SequenceFlags {
    static final int INCREMENTAL_STATE_CLEARED = SequenceHeader.SEQ_INCREMENTAL_STATE_CLEARED;
    static final int NEEDS_INCREMENTAL_STATE = SequenceHeader.SEQ_NEEDS_INCREMENTAL_STATE;
    /**
     * Not a sequence flag (above the uint32 flags' two known bits, which are all {@link #of} keeps):
     * trace_processor can use the packet without the sequence's incremental state. Either it reads the
     * packet before it looks at the flags (a clock snapshot, a service event, an extension descriptor, a
     * remote clock sync), or the packet describes a track and carries nothing that uses the state (no
     * timestamp, event, interned data or defaults): a track a writer described must reach the trace,
     * since events on other sequences may name it and the writer describes it again only at its next
     * restart. Keeps such a packet going out of a chunk whose packets otherwise all need the state
     * ({@link io.jtrace.shm.abi.ChunkHeader#FLAG_NEEDS_INCREMENTAL_STATE}).
     */
    static final int USABLE_WITHOUT_STATE = 1 << 30;
    private static final int KNOWN_FLAGS = INCREMENTAL_STATE_CLEARED | NEEDS_INCREMENTAL_STATE;

    private static final int CLOCK_SNAPSHOT_FIELD = 6;
    private static final int TIMESTAMP_FIELD = 8;
    private static final int TRACK_EVENT_FIELD = 11;
    private static final int INTERNED_DATA_FIELD = 12;
    private static final int TRACE_PACKET_DEFAULTS_FIELD = 59;
    private static final int TRACK_DESCRIPTOR_FIELD = 60;
    private static final int SEQUENCE_FLAGS_FIELD = 13;
    private static final int LEGACY_INCREMENTAL_STATE_CLEARED_FIELD = 41;
    private static final int SERVICE_EVENT_FIELD = 69;
    private static final int EXTENSION_DESCRIPTOR_FIELD = 72;
    private static final int REMOTE_CLOCK_SYNC_FIELD = 107;

    private SequenceFlags() {}

    /**
     * The flags of the packet in {@code [start, start + size)} as trace_processor sees them: the last
     * {@code sequence_flags} (a non-repeated field's last occurrence wins), with the last legacy cleared
     * field folded into {@link #INCREMENTAL_STATE_CLEARED}, and of the rest only the two flags
     * trace_processor acts on; NEEDS_INCREMENTAL_STATE replaced by {@link #USABLE_WITHOUT_STATE} for a
     * packet trace_processor reads before it looks at that flag, and that bit added for a track
     * description that uses no state. 0 for a packet that cannot be walked (trace_processor would not
     * skip it for its flags either; in a chunk that says its packets need the state, it is held back).
     */
    static int of(byte[] data, int start, int size) {
        int pos = start;
        int end = start + size;
        int flags = 0;
        boolean legacyCleared = false;
        boolean readFirst = false;
        boolean describesTrack = false;
        boolean usesState = false;
        while (pos < end) {
            long tagAndLength = Varints.read(data, pos, end);
            if (tagAndLength < 0) {
                return 0;
            }
            pos += (int) (tagAndLength >>> 32);
            int tag = (int) tagAndLength;
            int field = tag >>> 3;
            usesState |= field == TIMESTAMP_FIELD || field == TRACK_EVENT_FIELD || field == INTERNED_DATA_FIELD
                    || field == TRACE_PACKET_DEFAULTS_FIELD;
            switch (tag & 7) {
                case 0 -> {
                    if (field == SEQUENCE_FLAGS_FIELD || field == LEGACY_INCREMENTAL_STATE_CLEARED_FIELD) {
                        long value = Varints.read(data, pos, end);
                        if (value < 0) {
                            return 0;
                        }
                        pos += (int) (value >>> 32);
                        if (field == SEQUENCE_FLAGS_FIELD) {
                            flags = (int) value & KNOWN_FLAGS;
                        } else {
                            legacyCleared = (int) value != 0;
                        }
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
                    describesTrack |= field == TRACK_DESCRIPTOR_FIELD;
                    readFirst |= field == CLOCK_SNAPSHOT_FIELD || field == SERVICE_EVENT_FIELD
                            || field == EXTENSION_DESCRIPTOR_FIELD || field == REMOTE_CLOCK_SYNC_FIELD;
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
        if (legacyCleared) {
            flags |= INCREMENTAL_STATE_CLEARED;
        }
        if (readFirst) {
            return flags & ~NEEDS_INCREMENTAL_STATE | USABLE_WITHOUT_STATE;
        }
        return describesTrack && !usesState ? flags | USABLE_WITHOUT_STATE : flags;
    }
}
