package io.jtrace.shm.abi;

/**
 * The 2-bit state of a chunk in its page header. The numeric values are Perfetto's.
 *
 * <p>Legal transitions: FREE → BEING_WRITTEN (producer), BEING_WRITTEN → COMPLETE (producer),
 * COMPLETE → BEING_READ (service), BEING_READ → FREE (service). Every other transition is refused.
 */
public enum ChunkState {
    FREE(0),
    BEING_WRITTEN(1),
    BEING_READ(2),
    COMPLETE(3);

    private static final ChunkState[] BY_CODE = {FREE, BEING_WRITTEN, BEING_READ, COMPLETE};

    private final int code;

    ChunkState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static ChunkState fromCode(int code) {
        return BY_CODE[code & 3];
    }

    /** Whether the ABI allows moving a chunk from this state to {@code next}. */
    public boolean canMoveTo(ChunkState next) {
        switch (this) {
            case FREE:
                return next == BEING_WRITTEN;
            case BEING_WRITTEN:
                return next == COMPLETE;
            case COMPLETE:
                return next == BEING_READ;
            case BEING_READ:
                return next == FREE;
            default:
                return false;
        }
    }
}
