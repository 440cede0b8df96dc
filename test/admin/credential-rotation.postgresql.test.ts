import { PG_TEST_URL } from "../helpers/databases";
import { credentialRotationSuite } from "./credential-rotation.suite";

credentialRotationSuite("postgresql", Boolean(PG_TEST_URL));
