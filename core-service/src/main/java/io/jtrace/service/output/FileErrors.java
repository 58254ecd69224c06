package io.jtrace.service.output;

import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;

/**
 * Why a file could not be made or written, in words rather than an exception's class name. Worded for
 * outputs: a missing path is one whose directories could not be made (unless it is named as an input).
 */
public final class FileErrors {
    private FileErrors() {}

    /**
     * As {@link #plainly(Exception)}, but a file of {@code inputs} (files read, not made) that does not
     * exist is said to be missing ("X: no such file", as every command says of a missing input) rather
     * than a path that cannot be made.
     */
    public static String plainly(Exception e, Collection<Path> inputs) {
        if (e instanceof UncheckedIOException u && u.getCause() != null) {
            return plainly(u.getCause(), inputs);
        }
        if (e instanceof NoSuchFileException n && n.getFile() != null && inputs.stream().anyMatch(
                input -> n.getFile().equals(input.toString()) || n.getFile().equals(input.toAbsolutePath().toString()))) {
            return n.getFile() + ": no such file";
        }
        return plainly(e);
    }

    public static String plainly(Exception e) {
        if (e instanceof UncheckedIOException u && u.getCause() != null) {
            return plainly(u.getCause());
        }
        if (e instanceof FileAlreadyExistsException f) {
            return f.getFile() + " is in the way: it exists and is not a directory";
        }
        if (e instanceof AccessDeniedException a) {
            return "permission denied on " + a.getFile();
        }
        if (e instanceof NoSuchFileException n) {
            return n.getFile() + " does not exist and cannot be made";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getFile() + ": " + f.getReason();
        }
        if (e.getMessage() != null && !(e instanceof FileSystemException)) {
            return e.getMessage();
        }
        return e.toString();
    }
}
