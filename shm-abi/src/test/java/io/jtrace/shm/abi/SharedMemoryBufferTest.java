package io.jtrace.shm.abi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SharedMemoryBufferTest {
    @TempDir
    Path dir;

    /**
     * On tmpfs (the default directory, /dev/shm, where the machine has it): the pages laid out, read
     * through the file; a page past a truncated file's end, and every page once the file is closed,
     * count as in use. Elsewhere every page does (a read of the file there need not see the mapping's).
     */
    @Test
    void pagesInUseAreThoseWhoseHeaderIsNotZeroOnTmpfsAndEveryPageOtherwise() throws IOException {
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(null, 16 * 4096, 4096);
        try {
            boolean tmpfs = "tmpfs".equals(Files.getFileStore(smb.path().getParent()).type());
            SharedMemoryAbi abi = new SharedMemoryAbi(smb);
            assertTrue(abi.tryPartitionPage(3, PageLayout.DIV4));
            assertTrue(abi.tryPartitionPage(15, PageLayout.DIV1));
            boolean[] inUse = new boolean[16];
            smb.pagesInUse(inUse);
            for (int page = 0; page < 16; page++) {
                assertEquals(!tmpfs || page == 3 || page == 15, inUse[page], "page " + page);
            }
            SharedMemoryBuffer mapped = SharedMemoryBuffer.map(smb.path(), 4096);
            mapped.pagesInUse(inUse);
            for (int page = 0; page < 16; page++) {
                assertTrue(inUse[page], "a mapped SMB has no file of its own: every page " + page);
            }
            try (RandomAccessFile file = new RandomAccessFile(smb.path().toFile(), "rw")) {
                file.setLength(12 * 4096);
            }
            smb.pagesInUse(inUse);
            for (int page = 0; page < 16; page++) {
                assertEquals(!tmpfs || page == 3 || page >= 12, inUse[page], "truncated, page " + page);
            }
            smb.closeFile();
            smb.pagesInUse(inUse);
            for (int page = 0; page < 16; page++) {
                assertTrue(inUse[page], "closed: every page " + page);
            }
        } finally {
            smb.unlink();
        }
    }

    @Test
    void createMakesAFileOnlyItsOwnerCanReadAndWrite() throws IOException {
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(dir, 16 * 4096, 4096);
        assertTrue(Files.isRegularFile(smb.path()));
        assertEquals(dir, smb.path().getParent());
        assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(smb.path()));
        assertEquals(16 * 4096, Files.size(smb.path()));
    }

    @Test
    void createReportsItsGeometryAndALittleEndianBuffer() throws IOException {
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(dir, 64 * 1024, 8192);
        assertEquals(64 * 1024, smb.size());
        assertEquals(8192, smb.pageSize());
        assertEquals(8, smb.pageCount());
        assertEquals(64 * 1024, smb.buffer().capacity());
        assertSame(ByteOrder.LITTLE_ENDIAN, smb.buffer().order());
    }

    @Test
    void twoSmbsInTheSameDirectoryGetDifferentNames() throws IOException {
        SharedMemoryBuffer a = SharedMemoryBuffer.create(dir, 4096, 4096);
        SharedMemoryBuffer b = SharedMemoryBuffer.create(dir, 4096, 4096);
        assertNotEquals(a.path(), b.path());
    }

    @Test
    void newSmbReadsAsZeroEverywhere() throws IOException {
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(dir, 8 * 4096, 4096);
        for (int i = 0; i < smb.size(); i += 8) {
            assertEquals(0L, smb.buffer().getLong(i), "offset " + i);
        }
    }

    @Test
    void secondMappingSeesTheFirstMappingsWritesAndViceVersa() throws IOException {
        SharedMemoryBuffer service = SharedMemoryBuffer.create(dir, 16 * 4096, 4096);
        SharedMemoryBuffer producer = SharedMemoryBuffer.map(service.path(), 4096);
        assertEquals(service.size(), producer.size());
        assertEquals(service.pageCount(), producer.pageCount());

        service.buffer().putLong(12345, 0x0123456789ABCDEFL);
        assertEquals(0x0123456789ABCDEFL, producer.buffer().getLong(12345));
        producer.buffer().putInt(60000, 0xCAFEBABE);
        assertEquals(0xCAFEBABE, service.buffer().getInt(60000));
    }

    @Test
    void chunkStateChangesAreSharedBetweenMappings() throws IOException {
        SharedMemoryBuffer service = SharedMemoryBuffer.create(dir, 4 * 4096, 4096);
        SharedMemoryAbi serviceAbi = new SharedMemoryAbi(service);
        SharedMemoryAbi producerAbi = new SharedMemoryAbi(SharedMemoryBuffer.map(service.path(), 4096));

        assertTrue(producerAbi.tryPartitionPage(3, PageLayout.DIV2));
        assertEquals(0, producerAbi.tryAcquireChunkForWriting(3, PageLayout.DIV2));
        assertFalse(serviceAbi.tryAcquireChunkForReading(3, 0), "not complete yet");
        producerAbi.releaseChunkAsComplete(3, 0);
        assertTrue(serviceAbi.tryAcquireChunkForReading(3, 0));
        assertTrue(serviceAbi.releaseChunkAsFree(3, 0));
        assertEquals(0, producerAbi.pageBitmap(3));
    }

    @Test
    void unlinkRemovesTheNameButBothMappingsKeepWorking() throws IOException {
        SharedMemoryBuffer service = SharedMemoryBuffer.create(dir, 4 * 4096, 4096);
        SharedMemoryBuffer producer = SharedMemoryBuffer.map(service.path(), 4096);
        service.unlink();
        assertFalse(Files.exists(service.path()));
        assertThrows(IOException.class, () -> SharedMemoryBuffer.map(service.path(), 4096));

        producer.buffer().putLong(8, 42L);
        assertEquals(42L, service.buffer().getLong(8));
        service.buffer().putLong(4096 * 3, -7L);
        assertEquals(-7L, producer.buffer().getLong(4096 * 3));
        service.unlink(); // idempotent
    }

    static Stream<Arguments> invalidGeometries() {
        return Stream.of(
                Arguments.of(64 * 1024, 6000, "page size", "6000"),
                Arguments.of(64 * 1024, 2048, "page size", "2048"),
                Arguments.of(64 * 1024, 0, "page size", "0"),
                Arguments.of(128 * 1024, 64 * 1024, "page size", "65536"),
                Arguments.of(10000, 4096, "multiple of the page size", "10000"),
                Arguments.of(3 * 4096, 8192, "multiple of the page size", "12288"),
                Arguments.of(32 * 1024 * 1024 + 32768, 32768, "32 MiB", "33587200"),
                Arguments.of(0, 4096, "size", "0"),
                Arguments.of(-4096, 4096, "size", "-4096"));
    }

    @ParameterizedTest(name = "size {0}, page {1}")
    @MethodSource("invalidGeometries")
    void createRejectsInvalidGeometryNamingTheProblem(int size, int pageSize, String problem, String value) throws IOException {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SharedMemoryBuffer.create(dir, size, pageSize));
        assertTrue(e.getMessage().contains(problem), e.getMessage());
        assertTrue(e.getMessage().contains(value), e.getMessage());
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(0, files.count(), "no file left behind");
        }
    }

    @Test
    void largestGeometryIsAccepted() throws IOException {
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(dir, SharedMemoryBuffer.MAX_SIZE, SharedMemoryBuffer.MAX_PAGE_SIZE);
        assertEquals(32 * 1024 * 1024, smb.size());
        assertEquals(1024, smb.pageCount());
        smb.unlink();
    }

    @Test
    void everyPageSizeMultipleOf4KiBUpTo32KiBIsAccepted() throws IOException {
        for (int pageSize = 4096; pageSize <= 32768; pageSize += 4096) {
            assertEquals(pageSize, SharedMemoryBuffer.create(dir, 2 * pageSize, pageSize).pageSize());
        }
    }

    @Test
    void mapRejectsAFileThatIsNotAWholeNumberOfPages() throws IOException {
        Path file = dir.resolve("odd");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(4096 * 3 + 100);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SharedMemoryBuffer.map(file, 4096));
        assertTrue(e.getMessage().contains("multiple of the page size"), e.getMessage());
    }

    @Test
    void mapRejectsAPageSizeTheFileDoesNotDivideInto() throws IOException {
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(dir, 3 * 4096, 4096);
        assertThrows(IllegalArgumentException.class, () -> SharedMemoryBuffer.map(smb.path(), 8192));
        assertThrows(IllegalArgumentException.class, () -> SharedMemoryBuffer.map(smb.path(), 1000));
    }

    @Test
    void mapRejectsAFileLargerThan32MiB() throws IOException {
        Path file = dir.resolve("huge");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(3L * 1024 * 1024 * 1024); // sparse
        }
        IOException e = assertThrows(IOException.class, () -> SharedMemoryBuffer.map(file, 4096));
        assertTrue(e.getMessage().contains(String.valueOf(SharedMemoryBuffer.MAX_SIZE)), e.getMessage());
    }
}
