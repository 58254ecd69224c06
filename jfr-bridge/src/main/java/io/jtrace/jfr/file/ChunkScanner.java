package io.jtrace.jfr.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Walks a .jfr file's chunk headers (a few reads, whatever the file's size) to find where it is damaged
 * before parsing: a chunk header (big-endian) starts with the magic {@code FLR\0}, the format version,
 * the chunk's size, the offsets of its constant pools and metadata, its start (epoch ns) and duration.
 */
final class ChunkScanner {
    static final int HEADER_BYTES = 68;
    private static final int MAGIC = 0x464C5200; // "FLR\0"

    private ChunkScanner() {}

    /** Throws when the file is not a JFR recording at all (no magic at its start). */
    static ChunkScan scan(Path file) throws IOException, JfrInputException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.BIG_ENDIAN);
            List<ChunkScan.Chunk> chunks = new ArrayList<>();
            long offset = 0;
            while (offset < size) {
                header.clear();
                int read = readAt(ch, header, offset);
                String where = "chunk " + (chunks.size() + 1) + " at byte " + offset;
                if (read >= 4 && header.getInt(0) != MAGIC) {
                    if (offset == 0) {
                        throw new JfrInputException(file + ": not a JFR recording (it does not start with the magic 'FLR\\0')");
                    }
                    return new ChunkScan(size, chunks, where + " has no chunk header (garbage after the last chunk)");
                }
                if (read < HEADER_BYTES) {
                    if (offset == 0 && read < 4) {
                        throw new JfrInputException(file + ": not a JFR recording (" + size + " bytes, too short for a chunk header)");
                    }
                    return new ChunkScan(size, chunks, where + " is truncated inside its header (" + read + " of "
                            + HEADER_BYTES + " bytes)");
                }
                long chunkSize = header.getLong(8);
                long constantPools = header.getLong(16);
                long metadata = header.getLong(24);
                if (chunkSize < HEADER_BYTES || constantPools >= chunkSize || metadata >= chunkSize || metadata < HEADER_BYTES) {
                    return new ChunkScan(size, chunks, where + " has a corrupt header (size " + chunkSize
                            + ", metadata at " + metadata + ", constant pools at " + constantPools
                            + "; an unfinished chunk of a recording still being written looks like this too)");
                }
                if (offset + chunkSize > size) {
                    return new ChunkScan(size, chunks, where + " is truncated: its header says " + chunkSize
                            + " bytes, the file has " + (size - offset));
                }
                chunks.add(new ChunkScan.Chunk(offset, chunkSize, header.getLong(32), header.getLong(40)));
                offset += chunkSize;
            }
            return new ChunkScan(size, chunks, null);
        }
    }

    private static int readAt(FileChannel ch, ByteBuffer into, long offset) throws IOException {
        int total = 0;
        while (into.hasRemaining()) {
            int n = ch.read(into, offset + total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }
}
