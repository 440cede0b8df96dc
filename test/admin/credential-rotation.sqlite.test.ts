import { credentialRotationSuite } from "./credential-rotation.suite";

credentialRotationSuite("sqlite");
