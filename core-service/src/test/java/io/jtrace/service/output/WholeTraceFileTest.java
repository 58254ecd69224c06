package io.jtrace.service.output;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

    /**
     * A target that is a symbolic link (even one that points nowhere yet, or to another link) gets the
     * trace where it points; the link stays a link. A move onto the link itself would replace the link
     * and leave its target as it was.
     */
    @Test
    void aCommitThroughASymbolicLinkPutsTheTraceWhereTheLinkPointsAndKeepsTheLink() throws IOException {
        Path real = dir.resolve("real.pftrace");
        Path link = Files.createSymbolicLink(dir.resolve("link.pftrace"), real.getFileName());
        Path linkToLink = Files.createSymbolicLink(dir.resolve("outer.pftrace"), link);
        for (Path target : List.of(link, linkToLink)) {
            Files.deleteIfExists(real);
            try (WholeTraceFile file = WholeTraceFile.beside(target)) {
                file.writer().packet(PACKET, 0, PACKET.length, PacketSink.NO_TRAILER, 0);
                file.commit();
            }
            assertTrue(Files.isSymbolicLink(link), "still a link");
            assertTrue(Files.isRegularFile(real), "the trace is where the link points");
            assertTrue(Files.size(real) > 0);
        }
        assertEquals(List.of(link, linkToLink, real), files());
    }

    /**
     * A link's ".." is resolved where the link really is: below a linked directory, that is not the
     * directory the target's path names textually.
     */
    @Test
    void aLinksParentDirectoryIsWhereTheLinkReallyIs() throws IOException {
        Path runs = Files.createDirectories(dir.resolve("data/runs/7"));
        Path run = Files.createSymbolicLink(dir.resolve("run"), runs);
        Files.createSymbolicLink(runs.resolve("t.pftrace"), Path.of("../latest/t.pftrace"));
        try (WholeTraceFile file = WholeTraceFile.beside(run.resolve("t.pftrace"))) {
            file.writer().packet(PACKET, 0, PACKET.length, PacketSink.NO_TRAILER, 0);
            file.commit();
        }
        assertTrue(Files.isRegularFile(dir.resolve("data/runs/latest/t.pftrace")), "where the kernel resolves the link");
        assertFalse(Files.exists(dir.resolve("latest")), "no stray directory beside the linked one");
    }

    /**
     * What is at the target and is not a regular file (a pipe here; a device such as /dev/full as root)
     * is refused up front: the commit's move would remove it. It stays, and no temporary file is left.
     */
    @Test
    void aTargetThatIsNotARegularFileIsRefusedAndStays() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Path emptyDirectory = Files.createDirectory(dir.resolve("empty-directory"));
        for (Path target : List.of(fifo, emptyDirectory)) {
            IOException e = assertThrows(IOException.class, () -> WholeTraceFile.beside(target));
            // A pipe could be streamed into instead; a directory only names where a file could go.
            String reason = target.equals(fifo) ? "is not a regular file" : "is a directory: name a file in it";
            assertTrue(e.getMessage().contains(reason), e.getMessage());
            assertEquals(target.equals(fifo), e.getMessage().contains("stream into it instead"), e.getMessage());
            assertTrue(Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS), target + " still there");
            assertFalse(Files.isRegularFile(target));
        }
        assertEquals(List.of(emptyDirectory, fifo), files());
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
    /** The check a ring session makes at its start: fails as beside would, and leaves no file either way. */
    @Test
    void checkingThatATargetCanBeWrittenLeavesNoFileAndRefusesAnUnwritableDirectory() throws Exception {
        Path target = dir.resolve("sub").resolve("ring.pftrace");
        WholeTraceFile.checkWritable(target);
        try (Stream<Path> left = Files.list(target.getParent())) {
            assertEquals(List.of(), left.toList(), "no temporary file left by the check");
        }
        assertFalse(Files.exists(target));
        IOException e = assertThrows(IOException.class, () -> WholeTraceFile.checkWritable(Path.of("/proc/ring.pftrace")));
        assertTrue(FileErrors.plainly(e).contains("/proc"), FileErrors.plainly(e));
    }
}
