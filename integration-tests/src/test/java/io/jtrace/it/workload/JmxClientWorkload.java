package io.jtrace.it.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.management.JMException;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServerConnection;
import javax.management.Notification;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A JMX client with no jtrace class on its class path (it checks that first), as JConsole would be:
 * connects to {@code args[0]} (a JMX service URL), drives {@code io.jtrace:type=Tracing} with plain
 * {@code MBeanServerConnection} calls and prints what it got, one {@code KEY=value} per line; exits
 * non-zero on the first surprise.
 */
public final class JmxClientWorkload {
    private JmxClientWorkload() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String ringFile = args[1];
        String dumpFile = args[2];
        try {
            Class.forName("io.jtrace.jmx.SessionInfo");
            throw new AssertionError("jtrace's classes are on this client's class path");
        } catch (ClassNotFoundException expected) {
            System.out.println("JTRACE_CLASSES=absent");
        }
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(url))) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            ObjectName name = new ObjectName("io.jtrace:type=Tracing");
            waitRegistered(server, name);
            BlockingQueue<Notification> notifications = new LinkedBlockingQueue<>();
            server.addNotificationListener(name, (n, handback) -> notifications.add(n), null, null);

            for (MBeanOperationInfo op : server.getMBeanInfo(name).getOperations()) {
                System.out.println("OPERATION=" + op.getName() + "|" + op.getDescription() + "|"
                        + op.getSignature()[0].getName() + "|" + op.getSignature()[0].getDescription());
            }
            for (Object ds : (Object[]) server.getAttribute(name, "DataSources")) {
                System.out.println("DATA_SOURCE=" + ((CompositeData) ds).get("name"));
            }
            CompositeData started = (CompositeData) server.invoke(name, "start",
                    new Object[] {"ring,name=jmx,buffer=4m,file=" + ringFile}, new String[] {String.class.getName()});
            System.out.println("STARTED=" + started.get("name") + " " + started.get("state") + " " + started.get("mode"));
            Thread.sleep(500);
            CompositeData flushed = (CompositeData) server.invoke(name, "flush", new Object[] {"jmx"},
                    new String[] {String.class.getName()});
            System.out.println("FLUSHED=" + flushed.get("name"));
            CompositeData dumped = (CompositeData) server.invoke(name, "dump", new Object[] {"jmx", dumpFile},
                    new String[] {String.class.getName(), String.class.getName()});
            System.out.println("DUMPED=" + dumped.get("file") + " " + dumped.get("bytes"));
            for (Object s : (Object[]) server.getAttribute(name, "Sessions")) {
                CompositeData session = (CompositeData) s;
                CompositeData buffer = (CompositeData) ((Object[]) session.get("buffers"))[0];
                System.out.println("SESSION=" + session.get("name") + " " + session.get("state") + " buffer "
                        + buffer.get("sizeBytes") + " used " + buffer.get("usedBytes"));
            }
            try {
                server.invoke(name, "stop", new Object[] {"no-such-session"}, new String[] {String.class.getName()});
                throw new AssertionError("stopping an unknown session succeeded");
            } catch (JMException | RuntimeException e) {
                Throwable cause = e;
                while (cause.getCause() != null) {
                    cause = cause.getCause();
                }
                System.out.println("ERROR=" + cause.getClass().getName() + ": " + cause.getMessage());
            }
            Thread.sleep(300);
            CompositeData stopped = (CompositeData) server.invoke(name, "stop", new Object[] {""},
                    new String[] {String.class.getName()});
            System.out.println("STOPPED=" + stopped.get("state") + " " + stopped.get("file") + " "
                    + stopped.get("bytesWritten"));
            List<String> types = new ArrayList<>();
            while (types.size() < 2) {
                Notification n = notifications.poll(10, TimeUnit.SECONDS);
                if (n == null) {
                    break;
                }
                CompositeData data = (CompositeData) n.getUserData();
                types.add(n.getType() + ":" + data.get("session") + ":" + data.get("file"));
            }
            System.out.println("NOTIFICATIONS=" + String.join(",", types));
        }
    }

    private static void waitRegistered(MBeanServerConnection server, ObjectName name) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!server.isRegistered(name)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " never registered");
            }
            Thread.sleep(50);
        }
    }
}
