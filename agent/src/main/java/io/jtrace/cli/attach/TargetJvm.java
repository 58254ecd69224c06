package io.jtrace.cli.attach;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import io.jtrace.jmx.TracingMBean;
import io.jtrace.jmx.TracingMXBean;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A running JVM reached through the Attach API: its local JMX connector (the JVM's own, started on
 * demand by {@code VirtualMachine.startLocalManagementAgent}, reachable only from this machine by this
 * user) and jtrace's MBean in it, the agent loaded first when it is not there yet and the command
 * starts a session ({@link #tracing}); other commands find it or report that it is not loaded
 * ({@link #loadedTracing}).
 */
public final class TargetJvm implements AutoCloseable {
    /** How long a freshly loaded agent gets to register its MBean. */
    static final long REGISTER_TIMEOUT_MS = 15_000;

    private final VirtualMachine vm;
    private final JMXConnector connector;
    private final MBeanServerConnection server;

    private TargetJvm(VirtualMachine vm, JMXConnector connector) throws IOException {
        this.vm = vm;
        this.connector = connector;
        this.server = connector.getMBeanServerConnection();
    }

    /** The jtrace version the agent in {@code vm} announced (its system property), or null if none runs there. */
    static String loadedVersion(VirtualMachine vm) throws IOException {
        return vm.getSystemProperties().getProperty(TracingMXBean.LOADED_PROPERTY);
    }

    static TargetJvm attach(long pid) throws UnreachableException {
        return connect(pid, attachVm(pid));
    }

    /**
     * The target if jtrace runs in it (its system property says so), else null: then nothing is started
     * in it, not even its local JMX agent.
     */
    static TargetJvm attachIfLoaded(long pid) throws UnreachableException {
        VirtualMachine vm = attachVm(pid);
        try {
            if (loadedVersion(vm) == null) {
                detach(vm);
                return null;
            }
        } catch (IOException e) {
            detach(vm);
            throw new UnreachableException("cannot read the system properties of pid " + pid + ": " + e.getMessage());
        }
        return connect(pid, vm);
    }

    private static TargetJvm connect(long pid, VirtualMachine vm) throws UnreachableException {
        JMXConnector connector = null;
        try {
            connector = JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent()));
            return new TargetJvm(vm, connector);
        } catch (IOException | RuntimeException e) {
            if (connector != null) {
                try {
                    connector.close();
                } catch (IOException ignored) {
                    // Failing already: the connection is dropped either way.
                }
            }
            detach(vm);
            throw new UnreachableException("cannot reach the JMX agent of pid " + pid + ": " + e.getMessage());
        }
    }

    /**
     * Loads {@code jtrace.jar} (this jar) into {@code pid} unless the agent runs there already (the
     * system property it sets says so), without JMX: for commands that reach the agent through its
     * consumer socket. Returns true if it loaded the agent.
     */
    public static boolean loadAgentUnlessLoaded(long pid) throws UnreachableException {
        VirtualMachine vm = attachVm(pid);
        try {
            if (loadedVersion(vm) != null) {
                return false;
            }
            vm.loadAgent(ownJar().toString());
            return true;
        } catch (AgentLoadException | AgentInitializationException | IOException e) {
            throw new UnreachableException("cannot load jtrace into pid " + pid + ": " + e.getMessage());
        } finally {
            detach(vm);
        }
    }

    private static VirtualMachine attachVm(long pid) throws UnreachableException {
        if (ProcessHandle.of(pid).isEmpty()) {
            throw new UnreachableException("no process with pid " + pid);
        }
        if (pid == ProcessHandle.current().pid()) {
            throw new UnreachableException("pid " + pid + " is this command itself");
        }
        // Attaching signals the process (SIGQUIT on Linux), which would kill one that is not a JVM: only
        // JVMs that publish themselves (what jcmd and jps see) are attached to.
        if (VirtualMachine.list().stream().noneMatch(d -> d.id().equals(String.valueOf(pid)))) {
            throw new UnreachableException("pid " + pid + " is not a JVM this user can attach to (jtrace list shows those)");
        }
        try {
            return VirtualMachine.attach(String.valueOf(pid));
        } catch (AttachNotSupportedException | IOException e) {
            throw new UnreachableException("cannot attach to pid " + pid + " (a JVM run by this user, not started with "
                    + "-XX:+DisableAttachMechanism?): " + e.getMessage());
        } catch (SecurityException e) {
            throw new UnreachableException("not permitted to attach to pid " + pid + ": " + e.getMessage());
        }
    }

    /** jtrace's control MBean in the target, loading {@code jtrace.jar} (this jar) into it if needed. */
    TracingMXBean tracing() throws UnreachableException {
        try {
            if (!server.isRegistered(TracingMBean.objectName())) {
                vm.loadAgent(ownJar().toString());
                awaitRegistration("jtrace was loaded into pid " + vm.id() + " but did not");
            }
        } catch (AgentLoadException | AgentInitializationException | IOException e) {
            throw new UnreachableException("cannot load jtrace into pid " + vm.id() + ": " + e.getMessage());
        }
        return proxy();
    }

    /**
     * jtrace's control MBean in a target found by {@link #attachIfLoaded}: never loads the agent. An agent
     * that has set its system property but not registered the MBean yet, as in the first moments of a
     * JVM started with {@code -javaagent}, is waited for.
     */
    TracingMXBean loadedTracing() throws UnreachableException {
        try {
            if (!server.isRegistered(TracingMBean.objectName())) {
                awaitRegistration("jtrace is loaded in pid " + vm.id() + " but did not");
            }
        } catch (IOException e) {
            throw new UnreachableException("cannot reach jtrace in pid " + vm.id() + ": " + e.getMessage());
        }
        return proxy();
    }

    private void awaitRegistration(String failure) throws IOException, UnreachableException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REGISTER_TIMEOUT_MS);
        try {
            while (!server.isRegistered(TracingMBean.objectName())) {
                if (System.nanoTime() > deadline) {
                    throw new UnreachableException(failure + " register " + TracingMBean.objectName() + " within "
                            + REGISTER_TIMEOUT_MS + " ms (see that JVM's stderr)");
                }
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnreachableException("interrupted");
        }
    }

    private TracingMXBean proxy() {
        return JMX.newMXBeanProxy(server, TracingMBean.objectName(), TracingMXBean.class);
    }

    static Path ownJar() throws UnreachableException {
        try {
            return Path.of(TargetJvm.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            throw new UnreachableException("cannot tell where jtrace.jar is: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        try {
            connector.close();
        } catch (IOException ignored) {
            // The target may have exited meanwhile: nothing left to close.
        }
        detach(vm);
    }

    private static void detach(VirtualMachine vm) {
        try {
            vm.detach();
        } catch (IOException ignored) {
            // As above.
        }
    }
}
