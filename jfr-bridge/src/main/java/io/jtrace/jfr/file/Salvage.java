package io.jtrace.jfr.file;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.consumer.RecordingFile;

/**
 * The readable part of a damaged recording, for {@code --keep-going}: every whole chunk that parses on
 * its own, copied into a temporary recording (chunks are self-contained, so any of them concatenated
 * is a recording). Parsing the damaged file directly is not enough: {@link RecordingFile} reads one
 * event ahead, and when the next chunk fails it throws away the event it had read, so the last event
 * before the damage would be lost; a chunk corrupt in the middle would also hide every later chunk.
 */
final class Salvage implements AutoCloseable {
    final Path file;
    final ChunkScan scan;
    final String loss;

    private Salvage(Path file, ChunkScan scan, String loss) {
        this.file = file;
        this.scan = scan;
        this.loss = loss;
    }

    static Salvage of(Path jfr, ChunkScan scan) throws IOException {
        List<String> losses = new ArrayList<>();
        List<ChunkScan.Chunk> kept = new ArrayList<>();
        Path salvaged = Files.createTempFile("jtrace-salvaged-", ".jfr");
        Path single = Files.createTempFile("jtrace-chunk-", ".jfr");
        try (FileChannel in = FileChannel.open(jfr, StandardOpenOption.READ);
                FileChannel out = FileChannel.open(salvaged, StandardOpenOption.WRITE)) {
            int index = 0;
            for (ChunkScan.Chunk c : scan.chunks()) {
                index++;
                copy(in, c, single);
                String problem = parseProblem(single);
                if (problem == null) {
                    kept.add(new ChunkScan.Chunk(out.position(), c.size(), c.startNanos(), c.durationNanos()));
                    transfer(in, c, out);
                } else {
                    losses.add("chunk " + index + " at byte " + c.offset() + " (" + c.size() + " bytes) does not parse: "
                            + problem);
                }
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(salvaged);
            throw e;
        } finally {
            Files.deleteIfExists(single);
        }
        if (scan.damage() != null) {
            losses.add(scan.damage());
        }
        long keptBytes = kept.stream().mapToLong(ChunkScan.Chunk::size).sum();
        return new Salvage(salvaged, new ChunkScan(keptBytes, kept, null), String.join("; ", losses));
    }

    private static void copy(FileChannel in, ChunkScan.Chunk c, Path to) throws IOException {
        try (FileChannel out = FileChannel.open(to, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            transfer(in, c, out);
        }
    }

    /** Appends the chunk at the target's position (transferTo may move fewer bytes than asked). */
    private static void transfer(FileChannel in, ChunkScan.Chunk c, FileChannel out) throws IOException {
        long done = 0;
        while (done < c.size()) {
            done += in.transferTo(c.offset() + done, c.size() - done, out);
        }
    }

    /** Null when every event of the one-chunk recording parses. */
    private static String parseProblem(Path chunk) {
        try (RecordingFile f = new RecordingFile(chunk)) {
            while (f.hasMoreEvents()) {
                f.readEvent();
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return JfrToTrace.describe(e);
        }
    }

    @Override
    public void close() throws IOException {
        Files.deleteIfExists(file);
    }
}
