package io.jtrace.ipc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Where jtrace's sockets live. One directory per user, which only that user may enter or write
 * (DESIGN §9): {@code $JTRACE_SOCKET_DIR} when set, else {@code /tmp/jtrace-<user>}. In it:
 * {@code producer.sock} and {@code consumer.sock} of the daemon, and {@code jvm-<pid>.sock}, the consumer
 * socket of a JVM whose agent runs its service embedded.
 */
public final class SocketPaths {
    public static final String DIRECTORY_VARIABLE = "JTRACE_SOCKET_DIR";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private final Path directory;

    public SocketPaths(Path directory) {
        this.directory = directory;
    }

    /** The default directory: {@code $JTRACE_SOCKET_DIR}, else {@code <tmp>/jtrace-<user>}. */
    public static SocketPaths defaults() {
        String configured = System.getenv(DIRECTORY_VARIABLE);
        if (configured != null && !configured.isBlank()) {
            return new SocketPaths(Path.of(configured));
        }
        return new SocketPaths(Path.of(System.getProperty("java.io.tmpdir"), "jtrace-" + System.getProperty("user.name")));
    }

    public Path directory() {
        return directory;
    }

    public Path producerSocket() {
        return directory.resolve("producer.sock");
    }

    public Path consumerSocket() {
        return directory.resolve("consumer.sock");
    }

    public Path jvmConsumerSocket(long pid) {
        return directory.resolve("jvm-" + pid + ".sock");
    }

    /**
     * Creates the directory (mode 0700) if needed and checks that it is safe to listen in: a directory
     * (not a link) owned by this user that nobody else can write. Throws {@link IOException} saying what
     * is wrong otherwise, so a socket is never created where another user could replace it.
     */
    public Path ensurePrivateDirectory() throws IOException {
        if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(directory.getParent() == null ? directory : directory.getParent());
            try {
                Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // Another process of ours created it first: checked below like any existing directory.
            }
        }
        if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("socket directory " + directory + " is not a directory");
        }
        String owner = Files.getOwner(directory, LinkOption.NOFOLLOW_LINKS).getName();
        if (!owner.equals(System.getProperty("user.name"))) {
            throw new IOException("socket directory " + directory + " belongs to " + owner + ", not to "
                    + System.getProperty("user.name"));
        }
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(directory, LinkOption.NOFOLLOW_LINKS);
        if (permissions.contains(PosixFilePermission.GROUP_WRITE) || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException("socket directory " + directory + " is writable by others ("
                    + PosixFilePermissions.toString(permissions) + "); make it 0700");
        }
        return directory;
    }
}
