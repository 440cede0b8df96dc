import { signInSuite } from "./sign-in.suite";

signInSuite("postgresql");
