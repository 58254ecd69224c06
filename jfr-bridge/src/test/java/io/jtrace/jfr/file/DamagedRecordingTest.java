package io.jtrace.jfr.file;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A truncated or corrupt recording: without {@code --keep-going} a clear error naming the file and the
 * damage, and no output; with it, everything before the damage converted and the loss reported.
 */
class DamagedRecordingTest {
    @TempDir
    static Path dir;
    static Path first;
    static Path second;

    @BeforeAll
    static void twoRecordings() throws Exception {
        first = TestRecordings.record(dir.resolve("first.jfr"), 2, 20);
        second = TestRecordings.record(dir.resolve("second.jfr"), 2, 20);
    }

    /** Recordings are sequences of self-contained chunks: two files one after the other are one recording. */
    private static Path concatenated(String name, long cutFromEnd) throws IOException {
        Path file = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(file)) {
            Files.copy(first, out);
            Files.copy(second, out);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - cutFromEnd);
        }
        return file;
    }

    @Test
    void wholeConcatenationConvertsEveryEventOfBoth() throws Exception {
        Path both = concatenated("both.jfr", 0);
        ConversionReport report = new JfrToTrace(false, null).convert(both, dir.resolve("both.pftrace"));
        assertEquals(GroundTruth.of(both).countPerType, report.eventsPerType());
        assertFalse(report.lostSomething());
    }

    @Test
    void truncatedRecordingFailsNamingTheFileAndTheDamageAndWritesNothing() throws Exception {
        Path cut = concatenated("cut.jfr", Files.size(second) / 2);
        Path out = dir.resolve("cut.pftrace");
        JfrInputException e = assertThrows(JfrInputException.class, () -> new JfrToTrace(false, null).convert(cut, out));
        assertTrue(e.getMessage().startsWith(cut.toString() + ": "), e.getMessage());
        assertTrue(e.getMessage().contains("is truncated: its header says " + Files.size(second) + " bytes"), e.getMessage());
        assertTrue(e.getMessage().contains("--keep-going"), e.getMessage());
        assertFalse(Files.exists(out), "no half-written output");
    }

    @Test
    void keepGoingConvertsTheWholeChunksBeforeTheCutAndReportsTheLoss() throws Exception {
        Path cut = concatenated("cut2.jfr", Files.size(second) / 2);
        Path out = dir.resolve("cut2.pftrace");
        ConversionReport report = new JfrToTrace(true, null).convert(cut, out);
        assertTrue(report.lostSomething());
        assertTrue(report.loss().contains("truncated"), report.loss());
        assertEquals(Files.size(first), report.bytesRead());
        assertEquals(GroundTruth.of(first).countPerType, report.eventsPerType());
        DecodedTrace trace = DecodedTrace.read(out);
        assertEquals(List.of(), trace.problems);
    }

    @Test
    void recordingCutInsideItsOnlyChunkHeaderFailsEvenWithKeepGoingAndWritesNothing() throws Exception {
        Path stub = dir.resolve("stub.jfr");
        Files.write(stub, java.util.Arrays.copyOf(Files.readAllBytes(first), 40));
        assertThrows(JfrInputException.class, () -> new JfrToTrace(false, null).convert(stub, dir.resolve("stub.pftrace")));
        // Nothing readable is a failure (exit 1), not a conversion with loss: no events were written.
        JfrInputException e = assertThrows(JfrInputException.class,
                () -> new JfrToTrace(true, null).convert(stub, dir.resolve("stub2.pftrace")));
        assertTrue(e.getMessage().contains("truncated inside its header"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("stub2.pftrace")), "nothing readable, nothing written");
        try (var left = Files.list(dir)) {
            assertFalse(left.anyMatch(f -> f.getFileName().toString().endsWith(".partial")), "no temporary file left");
        }
    }

    @Test
    void convertingARecordingOntoItselfIsRefusedAndLeavesItWhole() throws Exception {
        byte[] before = Files.readAllBytes(first);
        JfrInputException e = assertThrows(JfrInputException.class, () -> new JfrToTrace(false, null).convert(first, first));
        assertTrue(e.getMessage().contains("would overwrite the recording"), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(first));
    }

    @Test
    void aConversionThatFailsWhileWritingLeavesAnExistingOutputAsItWas() throws Exception {
        // The failure comes while the trace is being written: after the first chunk converted.
        Path corrupt = garbageInSecondChunk("corrupt-late.jfr");
        Path out = dir.resolve("existing.pftrace");
        Files.writeString(out, "an earlier trace");
        assertThrows(JfrInputException.class, () -> new JfrToTrace(false, null).convert(corrupt, out));
        assertEquals("an earlier trace", Files.readString(out));
    }

    @Test
    void fileThatIsNotARecordingIsRejectedEvenWithKeepGoing() throws Exception {
        Path text = dir.resolve("notes.jfr");
        Files.writeString(text, "these are not the events you are looking for\n".repeat(10));
        JfrInputException e = assertThrows(JfrInputException.class,
                () -> new JfrToTrace(true, null).convert(text, dir.resolve("notes.pftrace")));
        assertEquals(text + ": not a JFR recording (it does not start with the magic 'FLR\\0')", e.getMessage());
    }

    @Test
    void garbageInsideAChunkFailsWithAClearErrorOrWithKeepGoingLeavesOutThatChunkOnly() throws Exception {
        Path corrupt = garbageInSecondChunk("corrupt.jfr");
        Path out = dir.resolve("corrupt.pftrace");
        JfrInputException e = assertThrows(JfrInputException.class, () -> new JfrToTrace(false, null).convert(corrupt, out));
        assertTrue(e.getMessage().startsWith(corrupt + ": parsing stopped after "), e.getMessage());
        assertTrue(e.getMessage().endsWith("(--keep-going converts the chunks that parse)"), e.getMessage());
        assertFalse(Files.exists(out));

        // The corrupt chunk is left out whole; every event of the chunks before it is kept, the last one too.
        ConversionReport report = new JfrToTrace(true, null).convert(corrupt, out);
        assertTrue(report.loss().startsWith("chunk 2 at byte " + Files.size(first) + " ("), report.loss());
        assertTrue(report.loss().contains("does not parse"), report.loss());
        assertEquals(GroundTruth.of(first).countPerType, report.eventsPerType());
        assertEquals(List.of(), DecodedTrace.read(out).problems);
    }

    /** Both recordings, the second chunk's body (after its header) overwritten with garbage: headers stay valid, events do not. */
    private Path garbageInSecondChunk(String name) throws Exception {
        Path corrupt = concatenated(name, 0);
        long start = Files.size(first) + ChunkScanner.HEADER_BYTES;
        byte[] garbage = new byte[(int) Math.min(4096, Files.size(second) - ChunkScanner.HEADER_BYTES)];
        java.util.Arrays.fill(garbage, (byte) 0xFF);
        try (FileChannel ch = FileChannel.open(corrupt, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(garbage), start);
        }
        return corrupt;
    }
}
