package io.jtrace.jfr.file;

import java.util.List;

/**
 * The chunks of a .jfr file as their headers describe them, before any event is parsed. A recording is
 * a sequence of self-contained chunks; {@code damage} says what is wrong with the first chunk that is
 * not whole (null when every chunk is), and {@code chunks} are the whole ones before it.
 */
record ChunkScan(long fileSize, List<Chunk> chunks, String damage) {
    record Chunk(long offset, long size, long startNanos, long durationNanos) {}

    long readableBytes() {
        return chunks.isEmpty() ? 0 : chunks.get(chunks.size() - 1).offset() + chunks.get(chunks.size() - 1).size();
    }

    long startNanos() {
        return chunks.isEmpty() ? 0 : chunks.get(0).startNanos();
    }

    long endNanos() {
        long end = 0;
        for (Chunk c : chunks) {
            end = Math.max(end, c.startNanos() + c.durationNanos());
        }
        return end;
    }
}
