package io.jtrace.service.output;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A trace file written whole or not at all: into a temporary file beside the target, moved over it by
 * {@link #commit} once complete. Closed without a commit (a failed write: disk full, a damaged input, a
 * bug), it deletes the temporary file and leaves whatever the target held before — never a truncated
 * trace, and never a destroyed input that happened to be the target.
 *
 * <pre>{@code
 * try (WholeTraceFile file = WholeTraceFile.beside(target)) {
 *     write(file.writer());
 *     file.commit();
 * }
 * }</pre>
 */
public final class WholeTraceFile implements AutoCloseable {
    private final Path target;
    private final Path temp;
    private final TraceFileWriter writer;
    private boolean committed;

    private WholeTraceFile(Path target, Path temp) throws IOException {
        this.target = target;
        this.temp = temp;
        this.writer = new TraceFileWriter(temp);
    }

    public static WholeTraceFile beside(Path target) throws IOException {
        Path absolute = target.toAbsolutePath();
        Files.createDirectories(absolute.getParent());
        Path temp = Files.createTempFile(absolute.getParent(), "." + absolute.getFileName(), ".partial");
        try {
            return new WholeTraceFile(absolute, temp);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
    }

    public TraceFileWriter writer() {
        return writer;
    }

    /** Completes the file and puts it in the target's place. */
    public void commit() throws IOException {
        writer.close();
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
            try (writer) {
                // Closed first, so the delete below removes a file nobody writes any more.
            } finally {
                Files.deleteIfExists(temp);
            }
        }
    }
}
