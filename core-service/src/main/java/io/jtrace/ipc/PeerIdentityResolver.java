package io.jtrace.ipc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what the socket says about a peer (its user name, from {@code SO_PEERCRED}) into a
 * {@link PeerIdentity}. Java's {@code SO_PEERCRED} gives names only, so the uid is looked up and the pid
 * is known only from the peer's own claim, which is checked against {@code /proc}: a peer can name only a
 * process of its own user. Reads small files under {@code /proc} and {@code /etc}; called once per
 * connection on the host's I/O thread.
 */
final class PeerIdentityResolver {
    private static final Logger LOG = LoggerFactory.getLogger(PeerIdentityResolver.class);

    private final Path procRoot;
    private final Path passwdFile;

    /** @param procRoot where {@code <pid>} directories are ({@code /proc}); a test may point elsewhere */
    PeerIdentityResolver(Path procRoot, Path passwdFile) {
        this.procRoot = procRoot;
        this.passwdFile = passwdFile;
    }

    static PeerIdentityResolver system() {
        return new PeerIdentityResolver(Path.of("/proc"), Path.of("/etc/passwd"));
    }

    /** The peer as the socket reports it, with no pid. */
    PeerIdentity withoutPid(String user) {
        return new PeerIdentity(user, uidOf(user), -1);
    }

    /**
     * The peer with the pid it claims when {@code <procRoot>/<pid>} exists and belongs to {@code user}
     * (then the uid is that directory's); otherwise as {@link #withoutPid}: a claim is never trusted alone.
     */
    PeerIdentity withClaimedPid(String user, int pid) {
        if (pid <= 0) {
            LOG.debug("peer {} claimed pid {}: not a pid, ignored", user, pid);
            return withoutPid(user);
        }
        Path process = procRoot.resolve(Integer.toString(pid));
        try {
            String owner = Files.getOwner(process, LinkOption.NOFOLLOW_LINKS).getName();
            if (!owner.equals(user)) {
                LOG.warn("peer {} claimed pid {}, which belongs to {}: claim refused", user, pid, owner);
                return withoutPid(user);
            }
            int uid = (Integer) Files.getAttribute(process, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            return new PeerIdentity(user, uid, pid);
        } catch (IOException | UnsupportedOperationException e) {
            LOG.debug("peer {} claimed pid {}, which cannot be checked ({}): claim refused", user, pid, e.toString());
            return withoutPid(user);
        }
    }

    /** The uid of {@code user}: a numeric name is a uid (a user without a name), else the passwd entry, else -1. */
    int uidOf(String user) {
        if (!user.isEmpty() && user.chars().allMatch(Character::isDigit)) {
            try {
                return Integer.parseInt(user);
            } catch (NumberFormatException tooLarge) {
                return -1;
            }
        }
        try {
            List<String> lines = Files.readAllLines(passwdFile, StandardCharsets.UTF_8);
            for (String line : lines) {
                // name:password:uid:gid:...
                String[] fields = line.split(":", 4);
                if (fields.length >= 3 && fields[0].equals(user)) {
                    return Integer.parseInt(fields[2]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            LOG.debug("uid of {} not found in {}: {}", user, passwdFile, e.toString());
        }
        return -1;
    }
}
