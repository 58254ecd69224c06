package io.jtrace.shm.abi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A shared memory buffer (SMB): a file mapped read-write, divided into equal pages. The service
 * creates it ({@link #create}); a producer maps the same file by path ({@link #map}). Both sides see
 * one physical memory, so the page and chunk headers work as cross-process atomics.
 *
 * <p>The buffer returned by {@link #buffer()} is shared by every thread: use absolute get/put only,
 * never its position or limit.
 */
public final class SharedMemoryBuffer {
    public static final int MIN_PAGE_SIZE = 4096;
    public static final int MAX_PAGE_SIZE = 32 * 1024;
    public static final int MAX_SIZE = 32 * 1024 * 1024;
    public static final int DEFAULT_SIZE = 4 * 1024 * 1024;
    /**
     * 16 KiB: the largest chunk a writer takes (a page, once it filled a smaller one) holds about 600
     * slices, so the per-chunk work (claim, hand-over, the copy into a trace file) is spread over four
     * times as many events as on 4 KiB pages. A writer's first chunks stay about 1 KiB
     * ({@code ChunkArbiter.DEFAULT_CHUNK_BYTES}), so a thread that writes little holds no more.
     */
    public static final int DEFAULT_PAGE_SIZE = 16 * 1024;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path path;
    private final int pageSize;
    private final int size;
    private final ByteBuffer buffer;
    /**
     * The file, kept open by the side that created it (the service), to read page headers without the
     * mapping ({@link #pagesInUse}); null for a mapped or in-process SMB, and once {@link #closeFile} ran.
     */
    private volatile FileChannel file;
    /** {@link #pagesInUse}'s read buffer (the service thread's only). */
    private final ByteBuffer header = ByteBuffer.allocateDirect(Integer.BYTES);
    /**
     * Pages {@link #pagesInUse} saw laid out once: allocated since, so reading them through the mapping
     * costs nothing more, and they are not read through the file again (a read call each, some µs).
     */
    private boolean[] seenInUse;

    private SharedMemoryBuffer(Path path, int pageSize, ByteBuffer memory) {
        this(path, pageSize, memory, null);
    }

    private SharedMemoryBuffer(Path path, int pageSize, ByteBuffer memory, FileChannel file) {
        this.file = file;
        this.path = path;
        this.pageSize = pageSize;
        this.size = memory.capacity();
        this.buffer = memory.order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * An SMB in this process's memory (direct, zero-filled), backed by no file, so no other process can
     * map it and {@link #path()} is null. For tests in this package that need thousands of small SMBs,
     * such as the jcstress tests of the chunk protocols.
     */
    static SharedMemoryBuffer inProcess(int size, int pageSize) {
        validateGeometry(size, pageSize);
        return new SharedMemoryBuffer(null, pageSize, ByteBuffer.allocateDirect(size));
    }

    /**
     * Creates a new SMB file with a random name and mode 0600 in {@code dir} ({@link #defaultDirectory()}
     * when null), zero-filled (every page free), and maps it.
     */
    public static SharedMemoryBuffer create(Path dir, int size, int pageSize) throws IOException {
        validateGeometry(size, pageSize);
        Path directory = dir != null ? dir : defaultDirectory();
        Path file;
        while (true) {
            byte[] nameBytes = new byte[12];
            RANDOM.nextBytes(nameBytes);
            file = directory.resolve("jtrace-smb-" + HexFormat.of().formatHex(nameBytes));
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rw-------")));
                break;
            } catch (FileAlreadyExistsException e) {
                // Astronomically unlikely with 96 random bits; pick another name.
            } catch (UnsupportedOperationException e) {
                Files.createFile(file);
                break;
            }
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            channel.truncate(0);
            // Extending by writing the last byte makes the file sparse-but-sized; every page reads as 0
            // (free, unpartitioned) without writing the whole file.
            channel.write(ByteBuffer.wrap(new byte[1]), size - 1L);
            MappedByteBuffer memory = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
            // Kept for pagesInUse on tmpfs only: there a read of the file and the mapping share one page,
            // and a read through the mapping is what allocates; elsewhere (a disk, FUSE) neither holds.
            if ("tmpfs".equals(Files.getFileStore(directory).type())) {
                return new SharedMemoryBuffer(file, pageSize, memory, channel);
            }
            channel.close();
            return new SharedMemoryBuffer(file, pageSize, memory);
        } catch (Throwable e) {
            try {
                channel.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            Files.deleteIfExists(file);
            throw e;
        }
    }

    /** Maps an SMB file created by {@link #create}, typically in another process. */
    public static SharedMemoryBuffer map(Path file, int pageSize) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long fileSize = channel.size();
            if (fileSize > MAX_SIZE) {
                throw new IOException("SMB file " + file + " is " + fileSize + " bytes, more than " + MAX_SIZE);
            }
            validateGeometry((int) fileSize, pageSize);
            return new SharedMemoryBuffer(file, pageSize, channel.map(FileChannel.MapMode.READ_WRITE, 0, fileSize));
        }
    }

    /** {@code /dev/shm} when the machine has it (memory-backed), else the temp directory. */
    public static Path defaultDirectory() {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            return shm;
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    static void validateGeometry(int size, int pageSize) {
        if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || pageSize % MIN_PAGE_SIZE != 0) {
            throw new IllegalArgumentException("SMB page size must be a multiple of 4 KiB between 4 KiB and 32 KiB, got "
                    + pageSize);
        }
        if (size <= 0 || size > MAX_SIZE || size % pageSize != 0) {
            throw new IllegalArgumentException("SMB size must be a positive multiple of the page size (" + pageSize
                    + ") of at most 32 MiB, got " + size);
        }
    }

    /**
     * Removes the file name. Mappings stay valid; the memory is freed when the last one goes. The
     * service calls this once both sides have mapped the file, so no one else can open it.
     */
    public void unlink() throws IOException {
        Files.deleteIfExists(path);
    }

    public Path path() {
        return path;
    }

    /**
     * Marks in {@code out} (at least {@link #pageCount} long) the pages whose header is not 0: the only
     * ones that can hold a chunk, since a page nobody laid out keeps the 0 it was created with. Read
     * through the file ({@code pread}), not the mapping: a read through a shared mapping of a page no
     * writer touched makes the kernel allocate it, so scanning every header that way made a whole 32 MiB
     * SMB resident (benchmarks/README.md). Every page is marked when this SMB has no file open (mapped
     * or in-process) or a read fails; callers then read the headers through the mapping as before. Not
     * ordered with the writers: a page laid out after its read (the scrape reads every header first) is
     * missed by that scrape; its chunks come with their commit or the next scrape.
     */
    public void pagesInUse(boolean[] out) {
        FileChannel channel = file;
        if (seenInUse == null) {
            seenInUse = new boolean[pageCount()];
        }
        // A file channel read with the interrupt flag set closes the channel: keep the flag off meanwhile.
        boolean interrupted = Thread.interrupted();
        try {
            for (int page = 0; page < pageCount(); page++) {
                out[page] = true;
                if (channel == null || seenInUse[page]) {
                    continue;
                }
                header.clear();
                int read = channel.read(header, (long) page * pageSize);
                out[page] = read != Integer.BYTES || header.getInt(0) != 0;
                seenInUse[page] = out[page];
            }
        } catch (IOException e) {
            // Broken (or closed meanwhile): every page from here on, through the mapping, from now on.
            for (int page = 0; page < pageCount(); page++) {
                out[page] = true;
            }
            closeFile();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Closes the file {@link #pagesInUse} reads (the mapping stays valid). Once the service is done with the SMB. */
    public void closeFile() {
        FileChannel channel = file;
        file = null;
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // Nothing is lost: the descriptor was only ever read.
            }
        }
    }

    public int pageSize() {
        return pageSize;
    }

    public int size() {
        return size;
    }

    public int pageCount() {
        return size / pageSize;
    }

    /** The mapped memory, little-endian. Absolute accesses only. */
    public ByteBuffer buffer() {
        return buffer;
    }
}
