// The fingerprint set of TLC's distributed server, as a remote object.
//
// TLC's server hands its fingerprint set to every worker over RMI. Since
// TLC commit 6fde5a9ea (February 2026) no FPSet class is a
// UnicastRemoteObject any more, so RMI tries to copy the set instead of
// passing a reference, and fails: NotSerializableException:
// tlc2.tool.fp.MultiFPSet. This class is TLC's own MultiFPSet of two
// MSBDiskFPSets (the set the server uses by default), exported as a remote
// object when it is made. tlcrun compiles it against the user's
// tla2tools.jar and names it in TLC's system property for a custom set,
// tlc2.tool.fp.FPSet.impl, with -fpbits 0 so that TLC makes this class
// rather than a MultiFPSet of its own. TLC itself is not changed.
// See docs/engine.md, "Past one machine".
package resumecheck.tlc;

import java.rmi.RemoteException;
import java.rmi.server.UnicastRemoteObject;

import tlc2.tool.fp.FPSetConfiguration;
import tlc2.tool.fp.MSBDiskFPSet;
import tlc2.tool.fp.MultiFPSet;

@SuppressWarnings("serial")
public class ExportedFPSet extends MultiFPSet {

	public ExportedFPSet(final FPSetConfiguration config) throws RemoteException {
		super(onDisk(config));
		// A TLC from before that commit exports every FPSet as it is made:
		// exporting it again would fail.
		final Object self = this;
		if (!(self instanceof UnicastRemoteObject)) {
			UnicastRemoteObject.exportObject(this, 0);
		}
	}

	// The configuration TLC makes by default: its share of the heap, two
	// nested disk-backed sets split by the fingerprint's top bit.
	private static FPSetConfiguration onDisk(final FPSetConfiguration config) {
		final FPSetConfiguration disk = new FPSetConfiguration(config.getRatio(), MSBDiskFPSet.class.getName());
		disk.setFpBits(1);
		return disk;
	}
}
