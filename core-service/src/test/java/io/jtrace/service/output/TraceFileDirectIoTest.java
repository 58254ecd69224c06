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
        try (TraceFileWriter writer = new TraceFileWriter(dir.resolve("direct.pftrace"))) {
            assertTrue(writer.directIo());
        }
    }

    @Test
    void everyFlushLeavesExactlyThePacketsWrittenSoFar() throws IOException {
        Path file = dir.resolve("flushed.pftrace");
        checkFlushesAndContents(() -> new TraceFileWriter(file), file);
    }

    @Test
    void aFileOnTmpfsIsTheSameFile() throws IOException {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm));
        Path file = Files.createTempDirectory(shm, "jtrace-direct-io-test").resolve("tmpfs.pftrace");
        try {
            checkFlushesAndContents(() -> new TraceFileWriter(file), file);
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
        checkFlushesAndContents(() -> opened[0] = new TraceFileWriter(TraceFileChannel.open(file, 512)), file);
        assertFalse(opened[0].directIo(), "fell back at the first refused write");
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

    private static void checkFlushesAndContents(WriterFactory factory, Path file) throws IOException {
        Random random = new Random(42);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        int[] sizes = {0, 1, 7, 30, 127, 128, 4_000, 4_096, 5_000, 70_000, 300_000};
        int packets = 0;
        try (TraceFileWriter writer = factory.open()) {
            for (int i = 0; i < 400; i++) {
                int size = sizes[random.nextInt(sizes.length)] + random.nextInt(3);
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
                if (random.nextInt(5) == 0) {
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
