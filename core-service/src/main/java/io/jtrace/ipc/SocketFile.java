package io.jtrace.ipc;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file of a listening UNIX socket: created mode 0600, replacing the stale file of a dead host but
 * never a live one, and removed at the end only if it is still ours.
 */
final class SocketFile {
    private static final Logger LOG = LoggerFactory.getLogger(SocketFile.class);
    private static final int FILE_TYPE_MASK = 0170000;
    private static final int SOCKET_TYPE = 0140000;

    private final Path path;
    /** The inode we bound: a later host may have replaced the file, and its socket is not ours to delete. */
    private final Object inode;

    private SocketFile(Path path, Object inode) {
        this.path = path;
        this.inode = inode;
    }

    /**
     * Binds {@code server} at {@code path}. A socket file nobody accepts on is removed first; one where
     * something accepts, or a file that is not a socket, is left alone and refused.
     */
    static SocketFile bind(ServerSocketChannel server, Path path) throws IOException {
        removeIfStale(path);
        server.bind(UnixDomainSocketAddress.of(path));
        // Between bind and here the file has the umask's mode; its directory is the owner's only
        // (SocketPaths.ensurePrivateDirectory), so nobody else can reach it meanwhile.
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        return new SocketFile(path, Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS));
    }

    private static void removeIfStale(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        if ((mode & FILE_TYPE_MASK) != SOCKET_TYPE) {
            throw new IOException(path + " exists and is not a socket; not replacing it");
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(path));
        } catch (ConnectException refused) {
            // Nobody accepts: the host that made it has gone.
            LOG.info("replacing stale socket {}", path);
            Files.deleteIfExists(path);
            return;
        }
        throw new IOException("socket " + path + " is already in use by a live host");
    }

    Path path() {
        return path;
    }

    /** Deletes the socket file unless another host has replaced it since. */
    void unlink() {
        try {
            if (inode.equals(Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS))) {
                Files.delete(path);
            }
        } catch (IOException e) {
            LOG.debug("socket {} not removed: {}", path, e.toString());
        }
    }
}
