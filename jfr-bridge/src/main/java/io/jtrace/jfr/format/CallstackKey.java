package io.jtrace.jfr.format;

import java.util.Arrays;

/** A callstack's frame iids, root first, as a map key. */
record CallstackKey(long[] frameIids) {
    @Override
    public boolean equals(Object o) {
        return o instanceof CallstackKey other && Arrays.equals(frameIids, other.frameIids);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(frameIids);
    }

    @Override
    public String toString() {
        return Arrays.toString(frameIids);
    }
}
