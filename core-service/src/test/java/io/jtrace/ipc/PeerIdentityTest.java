package io.jtrace.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jtrace.protos.IPCFrame;
import io.jtrace.service.ProcessIdentity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Who the host says a peer is: the socket's user, and a pid only when /proc backs the peer's claim. */
class PeerIdentityTest {
    private static final String ME = System.getProperty("user.name");

    @TempDir
    Path directory;

    private final EchoService echo = new EchoService();
    private IpcHost host;

    @AfterEach
    void stop() {
        if (host != null) {
            host.close();
        }
    }

    @Test
    void aClientIsSeenAsTheRealUserWithItsOwnPid() throws Exception {
        host = IpcHost.listen(directory.resolve("id.sock"), List.of(echo));
        try (IpcClient client = IpcClient.connect(host.socketPath(), null)) {
            client.bind(EchoService.NAME).get(10, TimeUnit.SECONDS);
            assertEquals(new PeerIdentity(ME, ProcessIdentity.uid(), ProcessIdentity.pid()), echo.bindings.get(0).connection.peer());
        }
    }

    @Test
    void aPeerThatClaimsNothingHasTheSocketsUserAndNoPid() throws Exception {
        host = IpcHost.listen(directory.resolve("id.sock"), List.of(echo));
        try (RawPeer peer = new RawPeer(host.socketPath())) {
            peer.send(IpcWireTest.bindFrame(1, EchoService.NAME));
            peer.read();
            assertEquals(new PeerIdentity(ME, ProcessIdentity.uid(), -1), echo.bindings.get(0).connection.peer());
        }
    }

    @Test
    void aPidClaimedAfterTheFirstFrameIsIgnored() throws Exception {
        host = IpcHost.listen(directory.resolve("id.sock"), List.of(echo));
        try (RawPeer peer = new RawPeer(host.socketPath())) {
            peer.send(IpcWireTest.bindFrame(1, EchoService.NAME));
            peer.send(identityClaim(ProcessIdentity.pid()));
            peer.send(IpcWireTest.bindFrame(2, EchoService.NAME));
            peer.read();
            peer.read();
            assertEquals(new PeerIdentity(ME, ProcessIdentity.uid(), -1), echo.bindings.get(0).connection.peer());
            assertEquals(1, host.stats().ignoredIdentityClaims());
        }
    }

    /**
     * The claim is checked against a process directory that belongs to another user: a fake /proc whose
     * entry is given to {@code nobody} when the test runs as root (root may chown), else the real /proc
     * and pid 1, which belongs to root.
     */
    @Test
    void aPidOfAnotherUsersProcessIsRefused() throws Exception {
        Path procRoot;
        int pid;
        if (ProcessIdentity.uid() == 0) {
            procRoot = Files.createDirectories(directory.resolve("proc"));
            pid = 4242;
            Path process = Files.createDirectory(procRoot.resolve(Integer.toString(pid)));
            Files.setOwner(process, process.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
        } else {
            procRoot = Path.of("/proc");
            pid = 1;
        }
        assertEquals(new PeerIdentity(ME, ProcessIdentity.uid(), -1), identityAfterClaim(procRoot, pid));
    }

    @Test
    void aPidOfTheUsersOwnProcessInTheProcRootIsAccepted() throws Exception {
        Path procRoot = Files.createDirectories(directory.resolve("proc"));
        Files.createDirectory(procRoot.resolve("4243"));
        assertEquals(new PeerIdentity(ME, ProcessIdentity.uid(), 4243), identityAfterClaim(procRoot, 4243));
    }

    @Test
    void aPidWithNoProcessIsRefused() throws Exception {
        Path procRoot = Files.createDirectories(directory.resolve("proc"));
        assertEquals(new PeerIdentity(ME, ProcessIdentity.uid(), -1), identityAfterClaim(procRoot, 4244));
        assertEquals(new PeerIdentity(ME, ProcessIdentity.uid(), -1), identityAfterClaim(procRoot, -3));
    }

    @Test
    void aUidIsFoundFromTheUserNameOrIsTheNumericName() throws Exception {
        Path passwd = Files.writeString(directory.resolve("passwd"), "root:x:0:0::/root:/bin/sh\nalice:x:1234:1234::/home/alice:/bin/sh\n");
        PeerIdentityResolver resolver = new PeerIdentityResolver(directory, passwd);
        assertEquals(1234, resolver.uidOf("alice"));
        assertEquals(0, resolver.uidOf("root"));
        assertEquals(5678, resolver.uidOf("5678"));
        assertEquals(-1, resolver.uidOf("bob"));
        assertEquals(-1, new PeerIdentityResolver(directory, directory.resolve("missing")).uidOf("alice"));
    }

    private PeerIdentity identityAfterClaim(Path procRoot, int pid) throws Exception {
        EchoService service = new EchoService();
        Path socket = directory.resolve("claim-" + pid + ".sock");
        try (IpcHost claimHost = IpcHost.listen(socket, List.of(service), "claims",
                new PeerIdentityResolver(procRoot, Path.of("/etc/passwd")))) {
            try (RawPeer peer = new RawPeer(claimHost.socketPath())) {
                peer.send(identityClaim(pid));
                peer.send(IpcWireTest.bindFrame(1, EchoService.NAME));
                peer.read();
                return service.bindings.get(0).connection.peer();
            }
        }
    }

    private static IPCFrame identityClaim(int pid) {
        return IPCFrame.newBuilder().setSetPeerIdentity(IPCFrame.SetPeerIdentity.newBuilder().setPid(pid)).build();
    }
}
