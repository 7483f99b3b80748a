// Runs a main class with every RMI server socket bound to one address.
//
// TLC's distributed server makes its RMI registry with
// LocateRegistry.createRegistry(port) and exports itself (and its
// fingerprint set) on an anonymous port, all through RMI's default socket
// factory, which listens on every interface. Java has no system property
// for the address RMI listens on, only for the one it advertises
// (java.rmi.server.hostname). This class installs a process-wide RMI
// socket factory whose server sockets listen on the address in the system
// property resumecheck.rmi.bind only, and which gives the exported
// objects' anonymous endpoint the port in resumecheck.rmi.objects (0: any
// port, on that address), then runs the class named by its first argument
// with the rest. TLC itself is not changed. See docs/engine.md, "Past one
// machine".
package resumecheck.tlc;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.server.RMISocketFactory;
import java.util.Arrays;

public final class Bind extends RMISocketFactory {

	private final InetAddress address;
	private final int objects;

	private Bind(final InetAddress address, final int objects) {
		this.address = address;
		this.objects = objects;
	}

	@Override
	public Socket createSocket(final String host, final int port) throws IOException {
		return new Socket(host, port);
	}

	@Override
	public ServerSocket createServerSocket(final int port) throws IOException {
		final ServerSocket s = new ServerSocket();
		s.setReuseAddress(true);
		s.bind(new InetSocketAddress(address, port == 0 ? objects : port), 50);
		return s;
	}

	public static void main(final String[] args) throws Throwable {
		final String host = System.getProperty("resumecheck.rmi.bind");
		if (host == null || host.isEmpty() || args.length == 0) {
			System.err.println("usage: java -Dresumecheck.rmi.bind=ADDRESS [-Dresumecheck.rmi.objects=PORT] resumecheck.tlc.Bind MAINCLASS ARGS...");
			System.exit(2);
		}
		RMISocketFactory.setSocketFactory(new Bind(InetAddress.getByName(host), Integer.getInteger("resumecheck.rmi.objects", 0)));
		final Method main = Class.forName(args[0]).getMethod("main", String[].class);
		try {
			main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
		} catch (InvocationTargetException e) {
			throw e.getCause();
		}
	}
}
