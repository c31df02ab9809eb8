/** Who is calling, as the token says. */
export interface AuthenticatedUser {
  sub: string;
  roles: string[];
}

export function isAdmin(user: AuthenticatedUser): boolean {
  return user.roles.includes('admin');
}
