package io.jtrace.service.buffer;

import java.util.Arrays;

/**
 * One sequence's stored chunks, sorted by ordinal, in a circular array. Chunks nearly always arrive in
 * order and leave from the front (read, or overwritten as the oldest), so both ends are O(1); lookups
 * (re-commits, patches) are binary searches; an out-of-order commit shifts at most the chunks after it.
 */
final class ChunkIndex {
    private ChunkRecord[] items = new ChunkRecord[16];
    private int head;
    private int size;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The i-th chunk in ordinal order. */
    ChunkRecord get(int i) {
        return items[(head + i) & (items.length - 1)];
    }

    ChunkRecord first() {
        return size == 0 ? null : get(0);
    }

    /** The chunk with this ordinal, or null. */
    ChunkRecord find(long ordinal) {
        int i = search(ordinal);
        return i >= 0 ? get(i) : null;
    }

    /** Adds a chunk whose ordinal is not stored yet. */
    void add(ChunkRecord record) {
        if (size == items.length) {
            grow();
        }
        if (size == 0 || record.ordinal > get(size - 1).ordinal) {
            items[(head + size) & (items.length - 1)] = record;
            size++;
            return;
        }
        int at = -search(record.ordinal) - 1;
        for (int i = size; i > at; i--) {
            items[(head + i) & (items.length - 1)] = get(i - 1);
        }
        items[(head + at) & (items.length - 1)] = record;
        size++;
    }

    /** Removes the chunk with this ordinal, if stored. */
    void remove(long ordinal) {
        // Almost always the first: read in order, or overwritten as the oldest.
        int at = size > 0 && items[head].ordinal == ordinal ? 0 : search(ordinal);
        if (at < 0) {
            return;
        }
        if (at == 0) {
            items[head] = null;
            head = (head + 1) & (items.length - 1);
            size--;
            return;
        }
        for (int i = at; i < size - 1; i++) {
            items[(head + i) & (items.length - 1)] = get(i + 1);
        }
        items[(head + size - 1) & (items.length - 1)] = null;
        size--;
    }

    /** Index of the ordinal, or -(insertion point) - 1. */
    private int search(long ordinal) {
        int lo = 0;
        int hi = size - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long value = get(mid).ordinal;
            if (value < ordinal) {
                lo = mid + 1;
            } else if (value > ordinal) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -lo - 1;
    }

    private void grow() {
        ChunkRecord[] bigger = new ChunkRecord[items.length * 2];
        for (int i = 0; i < size; i++) {
            bigger[i] = get(i);
        }
        Arrays.fill(items, null);
        items = bigger;
        head = 0;
    }
}
