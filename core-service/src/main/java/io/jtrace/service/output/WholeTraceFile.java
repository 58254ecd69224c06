package io.jtrace.service.output;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A trace file written whole or not at all: into a temporary file beside the target, moved over it by
 * {@link #commit} once complete. Closed without a commit (a failed write: disk full, a damaged input, a
 * bug), it deletes the temporary file and leaves whatever the target held before — never a truncated
 * trace, and never a destroyed input that happened to be the target. A JVM that exits before either
 * deletes the temporary file as it exits.
 *
 * <pre>{@code
 * try (WholeTraceFile file = WholeTraceFile.beside(target)) {
 *     write(file.writer());
 *     file.commit();
 * }
 * }</pre>
 *
 * <p>Or another writer (a tracing service streaming a session into it) fills {@link #temp()} of a file
 * made by {@link #forAnotherWriter}; then {@link #commit} only moves it.
 */
public final class WholeTraceFile implements AutoCloseable {
    /** Symbolic links followed from the target before giving up, as Linux's own limit. */
    private static final int MAX_LINKS = 40;
    private final Path target;
    private final Path temp;
    /** Null when another writer fills the file. */
    private final TraceFileWriter writer;
    private boolean committed;

    private WholeTraceFile(Path target, Path temp, boolean open) throws IOException {
        this.target = target;
        this.temp = temp;
        this.writer = open ? new TraceFileWriter(temp) : null;
    }

    public static WholeTraceFile beside(Path target) throws IOException {
        return create(target, true);
    }

    /** A whole file that something else writes into {@link #temp()}, such as a tracing service. */
    public static WholeTraceFile forAnotherWriter(Path target) throws IOException {
        return create(target, false);
    }

    /**
     * Fails as {@link #beside} would if a trace written whole cannot be put at {@code target} (a path
     * whose directories cannot be made, a directory that cannot be written, something in the way), but
     * leaves no file behind: the temporary file it makes to find out is deleted at once. For a file
     * written only much later (a ring session's, at its end), so a JVM killed meanwhile leaves nothing.
     */
    public static void checkWritable(Path target) throws IOException {
        Files.delete(newTempBeside(placeFor(target)));
    }

    private static WholeTraceFile create(Path target, boolean open) throws IOException {
        Path absolute = placeFor(target);
        Path temp = newTempBeside(absolute);
        // A JVM that exits before the file is whole (a dump still being written, a ring session's last
        // write cut short at exit) must not leave a hidden temporary file behind; once committed, the
        // name no longer exists and the delete at exit does nothing. Costs the JVM one path per file.
        try {
            temp.toFile().deleteOnExit();
            return new WholeTraceFile(absolute, temp, open);
        } catch (IOException | RuntimeException | Error e) {
            // An Error too (no direct memory for the file's ring; deleteOnExit refused once the JVM exits).
            Files.deleteIfExists(temp);
            throw e;
        }
    }

    /** The file a trace written whole for {@code target} replaces, its directories made. */
    private static Path placeFor(Path target) throws IOException {
        Path absolute = whatTheMoveReplaces(target.toAbsolutePath());
        Files.createDirectories(absolute.getParent());
        return absolute;
    }

    /**
     * The file the commit's move puts the trace in place of. A move replaces the name it is given: a
     * symbolic link would become a regular file and what it points to stay as it was, so the link is
     * followed (to where it points, which need not exist yet). Something there that is not a regular file
     * (a device, a pipe, a directory) is refused: the move would remove it, and as root that includes
     * the likes of /dev/full.
     */
    private static Path whatTheMoveReplaces(Path target) throws IOException {
        Path path = target;
        for (int hops = 0; Files.isSymbolicLink(path); hops++) {
            if (hops == MAX_LINKS) {
                throw new IOException(target + ": too many levels of symbolic links");
            }
            // Not normalized: ".." in a link is the kernel's to resolve, through the directory the link is
            // really in (which a textual ".." would get wrong below a linked directory).
            path = path.resolveSibling(Files.readSymbolicLink(path));
        }
        String named = target + (path.equals(target) ? "" : " (" + path + ")");
        if (Files.isDirectory(path)) {
            throw new IOException(named + " is a directory: name a file in it");
        }
        if (Files.exists(path) && !Files.isRegularFile(path)) {
            throw new IOException(named + " is not a regular file: a trace written whole is moved into place over"
                    + " it, which would remove it (stream into it instead)");
        }
        return path;
    }

    /**
     * A new empty file beside {@code target}, created as any new file is (its mode from the umask), so a
     * trace written whole gets the same mode as one streamed into its file; Files.createTempFile would
     * make it owner-only.
     */
    private static Path newTempBeside(Path target) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Path temp = target.resolveSibling("." + target.getFileName() + "."
                    + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".partial");
            try {
                Files.newByteChannel(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
                return temp;
            } catch (FileAlreadyExistsException e) {
                if (attempt >= 100) {
                    throw e;
                }
            }
        }
    }

    /** The writer of the temporary file; only for a file made by {@link #beside}. */
    public TraceFileWriter writer() {
        if (writer == null) {
            throw new IllegalStateException(temp + " is written by another writer");
        }
        return writer;
    }

    /** The temporary file, for a writer other than {@link #writer()}; it exists, empty. */
    public Path temp() {
        return temp;
    }

    /** Completes the file and puts it in the target's place. */
    public void commit() throws IOException {
        if (writer != null) {
            writer.close();
        }
        try {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
        committed = true;
    }

    @Override
    public void close() throws IOException {
        if (!committed) {
            try (TraceFileWriter open = writer) {
                // Closed first, so the delete below removes a file nobody writes any more.
            } finally {
                Files.deleteIfExists(temp);
            }
        }
    }
}
