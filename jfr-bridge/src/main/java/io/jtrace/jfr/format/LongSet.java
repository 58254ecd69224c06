package io.jtrace.jfr.format;

import java.util.Collection;

/**
 * A set of longs by open addressing: {@link DescribedTracks} asks it once per event whether a track is
 * described, which a {@code Set<Long>} would answer with a boxed {@code Long} allocated each time.
 */
final class LongSet {
    private static final int MIN_CAPACITY = 16;
    /** 0 marks a free slot; the value 0 itself is kept apart. */
    private long[] slots = new long[MIN_CAPACITY];
    private boolean hasZero;
    private int size;

    LongSet() {}

    LongSet(Collection<Long> values) {
        for (long v : values) {
            add(v);
        }
    }

    boolean contains(long value) {
        if (value == 0) {
            return hasZero;
        }
        int mask = slots.length - 1;
        for (int i = index(value, mask); ; i = (i + 1) & mask) {
            long s = slots[i];
            if (s == value) {
                return true;
            }
            if (s == 0) {
                return false;
            }
        }
    }

    /** Adds {@code value}; true if it was not there. */
    boolean add(long value) {
        if (value == 0) {
            boolean added = !hasZero;
            hasZero = true;
            return added;
        }
        int mask = slots.length - 1;
        int i = index(value, mask);
        for (long s = slots[i]; s != 0; s = slots[i]) {
            if (s == value) {
                return false;
            }
            i = (i + 1) & mask;
        }
        slots[i] = value;
        if (++size * 2 > slots.length) {
            grow();
        }
        return true;
    }

    void clear() {
        if (size > 0) {
            slots = new long[MIN_CAPACITY];
        }
        size = 0;
        hasZero = false;
    }

    private void grow() {
        long[] old = slots;
        slots = new long[old.length * 2];
        int mask = slots.length - 1;
        for (long v : old) {
            if (v != 0) {
                int i = index(v, mask);
                while (slots[i] != 0) {
                    i = (i + 1) & mask;
                }
                slots[i] = v;
            }
        }
    }

    private static int index(long value, int mask) {
        long h = value * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
