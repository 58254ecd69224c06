package io.jtrace.service.output;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.service.buffer.PacketSink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A trace file written whole or not at all, with the mode any trace file of the same user gets. */
class WholeTraceFileTest {
    private static final byte[] PACKET = "packet".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    /** A JVM that exits while a whole file is being written (a dump racing the exit) leaves neither it nor its temporary file. */
    @Test
    void aJvmThatExitsBeforeTheFileIsWholeLeavesNoTemporaryFileBehind() throws Exception {
        Path target = dir.resolve("dump.pftrace");
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(javaBin.toString(), "-cp", System.getProperty("java.class.path"),
                UnfinishedWholeFile.class.getName(), target.toString()).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.startsWith("temp=" + dir), "the child wrote its temporary file in " + dir + ": " + output);
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "nothing left in the target's directory");
        }
    }

    @Test
    void aCommittedFileTakesTheTargetsPlaceWithTheModeOfAStreamedTraceFile() throws IOException {
        Path streamed = dir.resolve("streamed.pftrace");
        try (TraceFileWriter writer = new TraceFileWriter(streamed)) {
            writer.packet(PACKET, 0, PACKET.length, PacketSink.NO_TRAILER, 0);
        }
        Path whole = dir.resolve("whole.pftrace");
        try (WholeTraceFile file = WholeTraceFile.beside(whole)) {
            file.writer().packet(PACKET, 0, PACKET.length, PacketSink.NO_TRAILER, 0);
            file.commit();
        }

        assertArrayEquals(Files.readAllBytes(streamed), Files.readAllBytes(whole));
        assertEquals(PosixFilePermissions.toString(Files.getPosixFilePermissions(streamed)),
                PosixFilePermissions.toString(Files.getPosixFilePermissions(whole)));
        assertEquals(List.of(streamed, whole), files());
    }

    @Test
    void aFileClosedWithoutACommitLeavesWhatTheTargetHeldAndNoTemporaryFile() throws IOException {
        Path target = Files.writeString(dir.resolve("old.pftrace"), "before");
        try (WholeTraceFile file = WholeTraceFile.beside(target)) {
            file.writer().packet(PACKET, 0, PACKET.length, PacketSink.NO_TRAILER, 0);
        }
        assertEquals("before", Files.readString(target));
        assertEquals(List.of(target), files());
    }

    @Test
    void anotherWriterGetsAnEmptyHiddenFileBesideTheTarget() throws IOException {
        Path target = dir.resolve("ring.pftrace");
        try (WholeTraceFile file = WholeTraceFile.forAnotherWriter(target)) {
            assertTrue(Files.exists(file.temp()));
            assertEquals(0, Files.size(file.temp()));
            assertEquals(dir, file.temp().getParent());
            assertTrue(file.temp().getFileName().toString().startsWith(".ring.pftrace."));
            assertFalse(Files.exists(target));
        }
        assertEquals(List.of(), files());
    }

    private List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }
}
