package io.jtrace.service.output;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trace file written with direct I/O holds back a partial block between writes: every flush must
 * still leave exactly the packets written so far, no padding, and the next write must continue that
 * block without a gap or a duplicate, whatever the packets' sizes and however the flushes fall.
 */
class TraceFileDirectIoTest {
    /** File systems known to take O_DIRECT: on them the writer must use it. */
    private static final Set<String> DIRECT_IO_FILE_SYSTEMS = Set.of("ext4", "xfs", "btrfs");

    @TempDir
    Path dir;

    @Test
    void aFileOnADiskFileSystemIsWrittenPastThePageCache() throws IOException {
        assumeTrue(DIRECT_IO_FILE_SYSTEMS.contains(Files.getFileStore(dir).type()),
                "the temp dir is on " + Files.getFileStore(dir).type());
        Path file = dir.resolve("direct.pftrace");
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            writer.packet(new byte[70_000], 0, 70_000, new byte[0], 0);
            writer.flush();
            assertTrue(writer.directIo());
            // What the kernel holds: a descriptor of this process open on the file with O_DIRECT.
            assertTrue(openFlags(file).stream().anyMatch(flags -> (flags & O_DIRECT) != 0),
                    "descriptors open on the file, flags in octal: " + openFlags(file).stream()
                            .map(Long::toOctalString).toList());
        }
        assertTrue(openFlags(file).isEmpty(), "every descriptor is closed");
    }

    /** Linux's O_DIRECT on x86-64 and arm64's generic value: 040000 (octal). */
    private static final long O_DIRECT = 040000;

    /** The flags (from /proc/self/fdinfo) of this process's descriptors open on {@code file}. */
    private static List<Long> openFlags(Path file) throws IOException {
        List<Long> flags = new java.util.ArrayList<>();
        Path target = file.toRealPath();
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    if (!Files.readSymbolicLink(fd).equals(target)) {
                        continue;
                    }
                    for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo", fd.getFileName().toString()))) {
                        if (line.startsWith("flags:")) {
                            flags.add(Long.parseLong(line.substring(6).trim(), 8));
                        }
                    }
                } catch (IOException closedMeanwhile) {
                    // The listing's own descriptor, or one closed since the listing: not the file's.
                }
            }
        }
        return flags;
    }

    @Test
    void everyFlushLeavesExactlyThePacketsWrittenSoFar() throws IOException {
        Path file = dir.resolve("flushed.pftrace");
        checkFlushesAndContents(() -> new TraceFileWriter(file), file, false);
    }

    @Test
    void aFileOnTmpfsIsTheSameFile() throws IOException {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm));
        Path file = Files.createTempDirectory(shm, "jtrace-direct-io-test").resolve("tmpfs.pftrace");
        try {
            checkFlushesAndContents(() -> new TraceFileWriter(file), file, false);
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(file.getParent());
        }
    }

    /** The JDK refuses a write aligned to less than the file system's block, as some file systems do. */
    @Test
    void directWritesRefusedAfterOpenGoThroughThePageCacheWithNothingLost() throws IOException {
        assumeTrue(DIRECT_IO_FILE_SYSTEMS.contains(Files.getFileStore(dir).type()));
        assumeTrue(Files.getFileStore(dir).getBlockSize() > 512);
        Path file = dir.resolve("refused.pftrace");
        TraceFileWriter[] opened = new TraceFileWriter[1];
        // The first direct write is a 512-byte block: refused by the JDK whatever the buffer's address.
        checkFlushesAndContents(() -> opened[0] = new TraceFileWriter(TraceFileChannel.open(file, 512)), file, true);
        assertFalse(opened[0].directIo(), "fell back at the first refused write");
    }

    @Test
    void aRuntimeWithoutJdkUnsupportedWritesThroughThePageCache() throws Exception {
        Path file = dir.resolve("no-jdk-unsupported.pftrace");
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(javaBin.toString(), "--limit-modules", "java.base,java.management",
                "-cp", System.getProperty("java.class.path"), PageCacheProbe.class.getName(), file.toString(), "5000")
                .redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("direct=false"), output);
        List<TracePacket> packets = Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
        assertEquals(5000, packets.size());
    }

    /** Every write but direct I/O's appends, so a pipe (here a FIFO) takes a trace as a file does. */
    @Test
    void aPipeTakesTheTraceInOrder() throws Exception {
        Path fifo = dir.resolve("trace.fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mkfifo.waitFor() == 0, "mkfifo");
        java.util.concurrent.CompletableFuture<byte[]> read = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return Files.readAllBytes(fifo);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (TraceFileWriter writer = new TraceFileWriter(fifo)) {
            assertFalse(writer.directIo());
            for (int i = 0; i < 20_000; i++) {
                byte[] packet = TracePacket.newBuilder().setTimestamp(i).build().toByteArray();
                writer.packet(packet, 0, packet.length, new byte[0], 0);
                expected.write(Trace.newBuilder().addPacket(TracePacket.parseFrom(packet)).build().toByteArray());
                if (i % 5_000 == 0) {
                    writer.flush();
                }
            }
        }
        assertArrayEquals(expected.toByteArray(), read.get(60, java.util.concurrent.TimeUnit.SECONDS));
    }

    @Test
    void closingTwiceDoesNothingTheSecondTime() throws IOException {
        Path file = dir.resolve("twice.pftrace");
        TraceFileWriter writer = new TraceFileWriter(file);
        writer.packet(new byte[5000], 0, 5000, new byte[0], 0);
        writer.close();
        byte[] closed = Files.readAllBytes(file);
        Files.delete(file);
        writer.close();
        assertFalse(Files.exists(file), "the second close did not write the file again");
        assertEquals(5003, closed.length);
    }

    /** Once direct writes worked, a failed write is an error: never a silent reopening of the path. */
    @Test
    void aWriteAfterCloseFailsInsteadOfReopeningTheFile() throws IOException {
        Path file = dir.resolve("closed.pftrace");
        TraceFileWriter writer = new TraceFileWriter(file);
        writer.packet(new byte[10_000], 0, 10_000, new byte[0], 0);
        writer.flush();
        writer.close();
        byte[] closed = Files.readAllBytes(file);
        org.junit.jupiter.api.Assertions.assertThrows(java.io.UncheckedIOException.class,
                () -> writer.packet(new byte[300_000], 0, 300_000, new byte[0], 0));
        assertArrayEquals(closed, Files.readAllBytes(file), "the closed file was not written again");
        Files.delete(file);
        org.junit.jupiter.api.Assertions.assertThrows(java.io.UncheckedIOException.class,
                () -> writer.packet(new byte[300_000], 0, 300_000, new byte[0], 0));
        assertFalse(Files.exists(file));
    }

    @Test
    void writingToDevNullNeedsNoDirectIo() throws IOException {
        try (TraceFileWriter writer = new TraceFileWriter(Path.of("/dev/null"))) {
            writer.packet(new byte[100], 0, 100, new byte[3], 3);
            writer.flush();
            assertFalse(writer.directIo());
            assertEquals(1, writer.packets());
        }
    }

    /**
     * Writes packets of sizes from a few bytes to past the writer's buffer, as single packets and as
     * framed runs, flushing after random ones; after every flush the file must be the trace of
     * everything written so far, byte for byte.
     */
    private interface WriterFactory {
        TraceFileWriter open() throws IOException;
    }

    /**
     * With {@code flushFirst}, the first packet (a little over 512 bytes framed) is flushed at once: the
     * first direct write is one 512-byte block.
     */
    private static void checkFlushesAndContents(WriterFactory factory, Path file, boolean flushFirst)
            throws IOException {
        Random random = new Random(42);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        int[] sizes = {0, 1, 7, 30, 127, 128, 4_000, 4_096, 5_000, 70_000, 300_000};
        int packets = 0;
        try (TraceFileWriter writer = factory.open()) {
            for (int i = 0; i < 400; i++) {
                int size = i == 0 && flushFirst ? 600 : sizes[random.nextInt(sizes.length)] + random.nextInt(3);
                byte[] packet = TracePacket.newBuilder().setTimestamp(i)
                        .setTrustedPacketSequenceId(1 + random.nextInt(100))
                        .setSynchronizationMarker(com.google.protobuf.ByteString.copyFrom(new byte[size]))
                        .build().toByteArray();
                byte[] framed = Trace.newBuilder().addPacket(TracePacket.parseFrom(packet)).build().toByteArray();
                if (random.nextBoolean()) {
                    int trailer = Math.min(3, packet.length);
                    byte[] trailerBytes = java.util.Arrays.copyOfRange(packet, packet.length - trailer, packet.length);
                    writer.packet(packet, 0, packet.length - trailer, trailerBytes, trailer);
                } else {
                    writer.framedPackets(framed, 0, framed.length, 1);
                }
                expected.write(framed);
                packets++;
                if (i == 0 && flushFirst || random.nextInt(5) == 0) {
                    writer.flush();
                    assertFileHolds(file, expected.toByteArray(), packets);
                }
            }
            assertEquals(packets, writer.packets());
            assertEquals(expected.size(), writer.bytes());
        }
        assertFileHolds(file, expected.toByteArray(), packets);
    }

    private static void assertFileHolds(Path file, byte[] expected, int packets) throws IOException {
        byte[] actual = Files.readAllBytes(file);
        assertEquals(expected.length, actual.length, "the file's length");
        assertArrayEquals(expected, actual);
        List<TracePacket> parsed = Trace.parseFrom(actual).getPacketList();
        assertEquals(packets, parsed.size());
    }
}
