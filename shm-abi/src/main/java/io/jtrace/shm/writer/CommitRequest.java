package io.jtrace.shm.writer;

import java.util.Arrays;

/**
 * A batch of chunks released by writers, to be moved by the service from the SMB into trace buffers.
 * The Java form of Perfetto's {@code CommitDataRequest.chunks_to_move}: each entry is (page, chunk
 * index, target buffer id).
 */
public final class CommitRequest {
    private int[] pages;
    private int[] chunks;
    private int[] targetBuffers;
    private int count;

    public CommitRequest(int capacity) {
        int n = Math.max(capacity, 1);
        pages = new int[n];
        chunks = new int[n];
        targetBuffers = new int[n];
    }

    public void add(int page, int chunk, int targetBuffer) {
        if (count == pages.length) {
            int n = count * 2;
            pages = Arrays.copyOf(pages, n);
            chunks = Arrays.copyOf(chunks, n);
            targetBuffers = Arrays.copyOf(targetBuffers, n);
        }
        pages[count] = page;
        chunks[count] = chunk;
        targetBuffers[count] = targetBuffer;
        count++;
    }

    public int size() {
        return count;
    }

    public int page(int i) {
        return pages[i];
    }

    public int chunk(int i) {
        return chunks[i];
    }

    public int targetBuffer(int i) {
        return targetBuffers[i];
    }

    @Override
    public String toString() {
        return "CommitRequest{" + count + " chunks}";
    }
}
