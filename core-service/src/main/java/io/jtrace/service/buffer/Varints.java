package io.jtrace.service.buffer;

/**
 * Varint reading and writing for the read-out path, where every packet's size, tags and lengths pass
 * through here: the common one-byte case costs one load and one test, and the rest is unrolled (a loop
 * with a bound check per byte was the read-out's largest per-packet cost).
 */
public final class Varints {
    private Varints() {}

    /** Varint at {@code pos} before {@code end}: (bytes used << 32 | value), or -1 if malformed, truncated or ≥ 2^31. */
    static long read(byte[] data, int pos, int end) {
        if (pos >= end) {
            return -1;
        }
        int b = data[pos];
        if (b >= 0) {
            return 1L << 32 | b;
        }
        if (end - pos < 5) {
            return readNearEnd(data, pos, end);
        }
        int value = b & 0x7F;
        b = data[pos + 1];
        value |= (b & 0x7F) << 7;
        if (b >= 0) {
            return 2L << 32 | value;
        }
        b = data[pos + 2];
        value |= (b & 0x7F) << 14;
        if (b >= 0) {
            return 3L << 32 | value;
        }
        b = data[pos + 3];
        value |= (b & 0x7F) << 21;
        if (b >= 0) {
            return 4L << 32 | value;
        }
        b = data[pos + 4];
        // A fifth byte above 7 sets bit 31 or more, or continues: neither is a size this format uses.
        if (b < 0 || b > 7) {
            return -1;
        }
        return 5L << 32 | value | b << 28;
    }

    private static long readNearEnd(byte[] data, int pos, int end) {
        long value = 0;
        for (int i = 0; pos + i < end; i++) {
            int b = data[pos + i] & 0xFF;
            value |= (long) (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                return value > Integer.MAX_VALUE ? -1 : ((long) (i + 1) << 32) | value;
            }
        }
        return -1;
    }

    /** Position after the varint at {@code pos} (any 64-bit value), or -1 if it is malformed or runs past {@code end}. */
    static int skip(byte[] data, int pos, int end) {
        int limit = Math.min(end, pos + 10);
        for (int i = pos; i < limit; i++) {
            if (data[i] >= 0) {
                return i + 1;
            }
        }
        return -1;
    }

    static int putField(byte[] dst, int pos, int field, long value) {
        pos = put(dst, pos, (long) field << 3);
        return put(dst, pos, value);
    }

    /** Writes {@code value} as a varint at {@code pos}; returns the position after it. */
    public static int put(byte[] dst, int pos, long value) {
        while ((value & ~0x7FL) != 0) {
            dst[pos++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        dst[pos++] = (byte) value;
        return pos;
    }
}
